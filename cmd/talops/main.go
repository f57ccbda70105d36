// Command talops runs Talos Linux clusters from a Git repository, locally or as a GitHub Action.
package main

import (
	// The heap goal is at least 12 MiB while the live heap is small: start-up allocates
	// some 3 MB that stays live, and small heaps were collected every few MB. Its init
	// runs before most of the dependencies' (Go initialises a package once its imports
	// are, the first in import-path order).
	_ "github.com/talops/talops/internal/startheap"

	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/talops/talops/internal/action"
	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/door"
)

func main() {
	args := os.Args[1:]

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, stop := door.StopOnSignals(context.Background(), sigs, door.Acting(args), door.StopGrace, os.Exit)

	deps := cli.OSDeps()

	var err error
	if len(args) > 0 && args[0] == "action" {
		err = action.Run(ctx, deps, args[1:])
	} else {
		err = cli.Run(ctx, deps, args)
	}

	stop()
	os.Exit(cli.ExitCode(err))
}
