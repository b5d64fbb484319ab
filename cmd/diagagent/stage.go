package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/diagagent/diagagent/agent/config"
	"github.com/diagagent/diagagent/agent/parts"
)

// stage answers diagagent stage: the packaged unit runs it as root
// (ExecStartPre=+ and ExecReload=+) to copy the configuration and the
// keyring it names from /etc/diagagent, which only root reads, into the
// service's runtime directory, owned by its dynamic user, mode 0600. A
// reload stages the files again before the SIGHUP, so an edited keyring
// or configuration is what the agent reloads (systemd's LoadCredential
// copies them at start only). The configuration must load: a broken edit
// fails the reload and leaves the staged files as they were.
func stage(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent stage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", config.DefaultPath, "configuration file to stage")
	to := fs.String("to", "", "directory to stage it in (the unit's RuntimeDirectory); the files take its owner")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *to == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "diagagent stage: give -to DIR (and -config FILE)")
		return 2
	}
	cfg, err := config.Load(parts.Defaults(), *path, env, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	files := []string{*path}
	if cfg.Keyring != "" {
		rel, err := filepath.Rel(filepath.Dir(*path), cfg.Keyring)
		if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			fmt.Fprintf(stderr, "keyring: %s is not beside %s: name it relative to the configuration (keyring: keyring) so that it is staged with it\n", cfg.Keyring, *path)
			return 2
		}
		files = append(files, cfg.Keyring)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Dir(*path), f)
		if err := stageFile(f, filepath.Join(*to, rel)); err != nil {
			fmt.Fprintln(stderr, "diagagent stage:", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "staged %d files in %s\n", len(files), *to)
	return 0
}

// stageFile copies from to the path to, mode 0600, owned by the owner of
// to's directory: written beside, then renamed over the old copy.
func stageFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	dir := filepath.Dir(to)
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	uid, gid, ok := owner(fi)
	if !ok {
		return errors.New("cannot read the owner of " + dir)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(to)+".stage-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chown(tmp.Name(), uid, gid); err != nil && os.Geteuid() == 0 {
		return err
	}
	return os.Rename(tmp.Name(), to)
}
