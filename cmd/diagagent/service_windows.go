package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"

	"github.com/diagagent/diagagent/agent/config"
)

// reloadLabel names what asks the agent to reload, in its log lines.
const reloadLabel = "reload"

// serviceName is the Windows service's name and its event log source.
const serviceName = "diagagent"

// stopWait is how long the service manager is told a stop may take: the
// last save of the state and the notifications still queued.
const stopWait = 15 * time.Second

// runService runs the agent as a Windows service when the service
// manager started the process: a stop or shutdown control ends it as
// SIGTERM does elsewhere, a parameter change (sc control diagagent
// paramchange, or diagagent service reload) reloads it as SIGHUP does, and
// its log goes to the Application event log under "diagagent".
func runService(args, env []string) (int, bool) {
	is, err := svc.IsWindowsService()
	if err != nil || !is {
		return 0, false
	}
	elog, err := eventlog.Open(serviceName)
	if err != nil {
		return 1, true
	}
	defer elog.Close()
	s := &winService{args: args, env: env, log: eventWriter{elog}}
	if err := svc.Run(serviceName, s); err != nil {
		_ = elog.Error(1, "diagagent: the service did not run: "+err.Error())
		return 1, true
	}
	return s.code, true
}

// winService is the agent under the service manager.
type winService struct {
	args, env []string
	log       io.Writer
	code      int
}

// Execute runs the agent until a stop or shutdown control, turning a
// parameter change into a reload (svc.Handler).
func (s *winService) Execute(_ []string, req <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reload := make(chan struct{}, 1)
	lifecycle = func() (context.Context, <-chan struct{}, func()) { return ctx, reload, cancel }
	done := make(chan int, 1)
	go func() { done <- run(s.args, s.env, s.log, s.log) }()
	status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown | svc.AcceptParamChange}
	for {
		select {
		case s.code = <-done: // it stopped by itself: a configuration error, say, in the event log
			return s.code != 0, uint32(s.code)
		case c := <-req:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.ParamChange:
				select {
				case reload <- struct{}{}:
				default:
				}
				status <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending, WaitHint: uint32(stopWait / time.Millisecond)}
				cancel()
				s.code = <-done
				return s.code != 0, uint32(s.code)
			}
		}
	}
}

// eventWriter writes each log line to the event log, as an error, a
// warning or information as its level says (text or JSON format); a line
// with no level is one of the messages the agent prints before its log
// exists (a configuration that does not load), an error.
type eventWriter struct{ l *eventlog.Log }

func (w eventWriter) Write(b []byte) (int, error) {
	line := strings.TrimSpace(string(b))
	var err error
	switch logLevelOf(line) {
	case "error":
		err = w.l.Error(1, line)
	case "warning":
		err = w.l.Warning(1, line)
	default:
		err = w.l.Info(1, line)
	}
	return len(b), err
}

// serviceCmd answers diagagent service install|remove|start|stop|reload:
// install registers this executable as an automatic service that the
// manager restarts after a crash, the event log source, and
// %ProgramData%\diagagent readable by SYSTEM and the Administrators
// alone (the keyring's guard, as mode 0600 is elsewhere).
func serviceCmd(args, env []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagagent service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", config.DefaultPath, "the configuration the service runs with (install)")
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" {
		fmt.Fprintln(stderr, "usage: diagagent service install [-config FILE] | remove | start | stop | reload")
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	verb := args[0]
	if code, ok := parse(fs, args[1:]); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return 2
	}
	var err error
	switch verb {
	case "install":
		err = install(*path)
	case "remove":
		err = remove()
	case "start", "stop", "reload":
		err = control(verb)
	default:
		fmt.Fprintf(stderr, "diagagent service: unknown verb %q: install, remove, start, stop or reload\n", verb)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "diagagent service %s: %v\n", verb, err)
		return 1
	}
	fmt.Fprintf(stdout, "diagagent service %s: done\n", verb)
	return 0
}

// install registers the service, its recovery and its event log source.
func install(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := guardDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("the service manager (run it as an Administrator): %w", err)
	}
	defer m.Disconnect()
	s, err := m.CreateService(serviceName, exe, mgr.Config{DisplayName: "diagagent", StartType: mgr.StartAutomatic,
		Description: "Distributed fault-management agent: tests its peers over SNMP and serves the DIAGNOSIS-MIB"}, "-config", path)
	if err != nil {
		return err
	}
	defer s.Close()
	restart := mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: 5 * time.Second}
	if err := s.SetRecoveryActions([]mgr.RecoveryAction{restart, restart, restart}, uint32((24 * time.Hour).Seconds())); err != nil {
		return err
	}
	err = eventlog.InstallAsEventCreate(serviceName, eventlog.Error|eventlog.Warning|eventlog.Info)
	if err != nil && !strings.Contains(err.Error(), "exists") {
		return fmt.Errorf("event log source: %w", err)
	}
	return nil
}

// remove unregisters the service and its event log source.
func remove() error {
	return withService(func(s *mgr.Service) error { return errors.Join(s.Delete(), eventlog.Remove(serviceName)) })
}

// control starts, stops or reloads the running service.
func control(verb string) error {
	return withService(func(s *mgr.Service) error {
		var err error
		switch verb {
		case "start":
			return s.Start()
		case "stop":
			_, err = s.Control(svc.Stop)
		default:
			_, err = s.Control(svc.ParamChange)
		}
		return err
	})
}

// withService runs f on the installed service.
func withService(f func(*mgr.Service) error) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("the service manager (run it as an Administrator): %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(serviceName)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}

// guardDir creates dir readable and writable by SYSTEM and the
// Administrators alone, inherited by what it holds, and no one else.
func guardDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)")
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}
