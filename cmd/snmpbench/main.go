//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// ErrUsage is returned for a missing or unknown mode or a bad flag value.
var ErrUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "snmpbench:", err)
		os.Exit(2)
	}
}

// run dispatches on the mode named by the first argument.
func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: snmpbench load|compare|serve|echo|freeport [flags]", ErrUsage)
	}
	switch args[0] {
	case "load":
		return cmdLoad(ctx, args[1:])
	case "compare":
		return cmdCompare(ctx, args[1:])
	case "serve":
		return cmdServe(ctx, args[1:])
	case "echo":
		return cmdEcho(ctx, args[1:])
	case "freeport":
		return cmdFreePort()
	}
	return fmt.Errorf("%w: unknown mode %q (want load, compare, serve, echo or freeport)", ErrUsage, args[0])
}
