package door

import (
	"context"
	"os"
	"slices"
	"time"
)

// ExitInterrupted is the exit code of a process stopped by a signal before its command
// returned: 128 + SIGINT's number, as a shell reports it.
const ExitInterrupted = 130

// StopGrace is how long a command that changes no node has to return after a signal
// before the process stops it.
const StopGrace = time.Second

// Acting tells the commands that change nodes or VMs (apply, the apply action, Proxmox):
// they stop at their next safe point when a signal comes, however long that takes, and
// only a second signal stops the process. Every other command is stopped StopGrace after
// the first.
func Acting(args []string) bool {
	if len(args) > 0 && args[0] == "action" {
		args = args[1:]
	}

	return len(args) > 0 && slices.Contains([]string{"apply", "proxmox"}, args[0])
}

// StopOnSignals returns a context cancelled by the first signal on sigs: every command
// stops at its next check of it. A decode or a merge of one large file has no check
// inside, so the process is stopped (exit, with ExitInterrupted) when the command has not
// returned StopGrace after that signal, or, for an acting command, at a second signal.
// stop ends the watch once the command returned.
func StopOnSignals(parent context.Context, sigs <-chan os.Signal, acting bool, grace time.Duration, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})

	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}

		var deadline <-chan time.Time
		if !acting {
			deadline = time.After(grace)
		}

		select {
		case <-sigs:
		case <-deadline:
		case <-done:
			return
		}

		exit(ExitInterrupted)
	}()

	return ctx, func() {
		close(done)
		cancel()
	}
}
