//go:build linux

package lan

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ErrExited is returned when a process ended before it was asked to.
var ErrExited = errors.New("lan: process exited")

// Proc is a program running inside a namespace, started by Start.
type Proc struct {
	Name string
	NS   string
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs name with args inside namespace ns (ip netns exec replaces itself
// with the program, so the PID is the program's). Every line it writes to
// stdout or stderr goes to log (if not nil) and to each line func, in order.
// The program is killed if this process dies first (Pdeathsig).
func Start(ns string, log io.Writer, line func(string), name string, args ...string) (*Proc, error) {
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("lan: pipe for %s: %w", name, err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("lan: start %s in %s: %w", name, ns, err)
	}
	pw.Close()
	p := &Proc{Name: name, NS: ns, cmd: cmd, done: make(chan struct{})}
	go p.pump(pr, log, line)
	return p, nil
}

// StartLogged is Start with the output appended to the file logPath,
// which is closed when the program exits.
func StartLogged(ns, logPath string, line func(string), name string, args ...string) (*Proc, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lan: %w", err)
	}
	p, err := Start(ns, log, line, name, args...)
	if err != nil {
		log.Close()
		return nil, err
	}
	go func() { <-p.Done(); log.Close() }()
	return p, nil
}

// pump copies the program's output line by line until it exits.
func (p *Proc) pump(r io.ReadCloser, log io.Writer, line func(string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if log != nil {
			fmt.Fprintln(log, sc.Text())
		}
		if line != nil {
			line(sc.Text())
		}
	}
	r.Close()
	_ = p.cmd.Wait()
	close(p.done)
}

// PID is the program's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Done is closed when the program has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Freeze stops the program with SIGSTOP: its host still answers ping, its
// sockets stay open but nothing reads them.
func (p *Proc) Freeze() error { return p.signal(syscall.SIGSTOP) }

// Kill ends the program with SIGKILL, as a crash or kill -9 would, and
// waits for it.
func (p *Proc) Kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.done
	return nil
}

// Hangup sends SIGHUP: a diagagent reloads its files.
func (p *Proc) Hangup() error { return p.signal(syscall.SIGHUP) }

// Thaw resumes a frozen program with SIGCONT.
func (p *Proc) Thaw() error { return p.signal(syscall.SIGCONT) }

func (p *Proc) signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return fmt.Errorf("%s in %s: %w", p.Name, p.NS, ErrExited)
	default:
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("lan: signal %v to %s: %w", sig, p.Name, err)
	}
	return nil
}

// Stop sends SIGTERM (after SIGCONT, in case it is frozen) and waits up to
// grace for the exit, then kills it. Stopping an exited program is a no-op.
func (p *Proc) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("lan: %s in %s ignored SIGTERM for %v and was killed", p.Name, p.NS, grace)
}

// stopAll stops every process of ps that is not nil at the same time, as
// Stop does, and sets its slot to nil: stopped one after the other, 256
// members on a starved machine took longer than the run.
func stopAll(ps []*Proc, grace time.Duration) error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for k, p := range ps {
		if p != nil {
			wg.Go(func() { errs[k] = p.Stop(grace) })
			ps[k] = nil
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Agent is the diagagent binary a test builds once, when its first test
// that runs agents asks for it (Path), and removes when the tests end
// (Remove): a plain unit run builds nothing.
type Agent struct {
	once      sync.Once
	dir, path string
	err       error
}

// Path builds the binary from cmd/diagagent at its first call and returns
// where it is.
func (a *Agent) Path() (string, error) {
	a.once.Do(func() {
		if a.dir, a.err = os.MkdirTemp("", "diagagent-bin-"); a.err != nil {
			return
		}
		a.path = filepath.Join(a.dir, "diagagent")
		if out, err := exec.Command("go", "build", "-o", a.path, "github.com/diagagent/diagagent/cmd/diagagent").CombinedOutput(); err != nil {
			a.err = fmt.Errorf("build diagagent: %w\n%s", err, out)
		}
	})
	return a.path, a.err
}

// Remove removes the binary, if it was built.
func (a *Agent) Remove() {
	if a.dir != "" {
		os.RemoveAll(a.dir)
	}
}
