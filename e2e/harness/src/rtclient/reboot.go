package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
)

// cmdReboot reboots a configured node through Talos' Reboot API (a node started with
// start.sh -r or -n) and waits until it answers again with a new boot ID. It prints the old
// and the new boot ID.
func cmdReboot(args []string) error {
	fs := flag.NewFlagSet("reboot", flag.ExitOnError)
	addr := fs.String("addr", "", "forwarder address of a configured node")
	tc := fs.String("talosconfig", "", "talosconfig of the node")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for the new boot")
	fs.Parse(args) //nolint:errcheck // the flag set exits on a bad flag (ExitOnError)

	cfg, err := clientconfig.Open(*tc)
	if err != nil {
		return err
	}

	ctx := context.Background()

	c, err := mtlsClient(ctx, cfg, *addr)
	if err != nil {
		return err
	}
	defer c.Close() //nolint:errcheck // a harness tool: a failed close changes nothing it reports

	old, err := readFile(ctx, c, "/proc/sys/kernel/random/boot_id")
	if err != nil {
		return fmt.Errorf("read the boot ID: %w", err)
	}

	t0 := time.Now()

	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	if err := c.Reboot(rctx); err != nil {
		return fmt.Errorf("reboot: %w", err)
	}

	var now string

	err = poll(*timeout, func() error {
		id, err := readFile(ctx, c, "/proc/sys/kernel/random/boot_id")
		if err != nil {
			return err
		}

		if id == old {
			return errors.New("the boot ID did not change yet")
		}

		now = id

		return nil
	})
	if err != nil {
		return fmt.Errorf("the node did not come back with a new boot ID within %s: %w", *timeout, err)
	}

	fmt.Fprintf(os.Stderr, "rtclient reboot: back with a new boot ID after %.1fs\n", time.Since(t0).Seconds())
	fmt.Printf("%s %s\n", old, now)

	return nil
}
