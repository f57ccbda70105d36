package talos

import (
	"fmt"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Mode is how a node takes a new config.
type Mode string

// Apply modes, as talops' --mode names them.
const (
	// ModeAuto lets the node decide: up to Talos 1.13 it reboots when a change needs it;
	// from 1.14 it never reboots (the caller reboots where the plan says so).
	ModeAuto Mode = "auto"
	// ModeNoReboot applies live; up to Talos 1.13 the node refuses a change that needs a reboot.
	ModeNoReboot Mode = "no-reboot"
	// ModeStaged stores the config for the next boot.
	ModeStaged Mode = "staged"
	// ModeTry applies live and rolls back unless confirmed within TryTimeout.
	ModeTry Mode = "try"
)

// Modes lists every mode, for flags.
var Modes = []string{string(ModeAuto), string(ModeNoReboot), string(ModeStaged), string(ModeTry)}

// TryTimeout is how long a config applied in try mode stays before the node rolls it back.
const TryTimeout = time.Minute

// Applied is what a node says about an applied config.
type Applied struct {
	// Rebooting is true when the node reboots by itself to take the config.
	Rebooting bool
	// Mode is the mode the node chose (AUTO resolves to REBOOT or NO_REBOOT).
	Mode string
	// Details is the node's own account of what it did (ModeDetails), e.g. a dry run's diff.
	Details string
	// Warnings are the node's validation warnings about the config it took.
	Warnings []string
}

// request builds the API request. The mode is always set: its zero value is the REBOOT
// mode Talos 1.14 removed.
func request(config []byte, mode Mode, dryRun bool) (*machine.ApplyConfigurationRequest, error) {
	req := &machine.ApplyConfigurationRequest{Data: config, DryRun: dryRun}

	switch mode {
	case ModeAuto:
		req.Mode = machine.ApplyConfigurationRequest_AUTO
	case ModeNoReboot:
		req.Mode = machine.ApplyConfigurationRequest_NO_REBOOT
	case ModeStaged:
		req.Mode = machine.ApplyConfigurationRequest_STAGED
	case ModeTry:
		req.Mode = machine.ApplyConfigurationRequest_TRY
		req.TryModeTimeout = durationpb.New(TryTimeout)
	default:
		return nil, fmt.Errorf("unknown apply mode %q", mode)
	}

	return req, nil
}

// Status is a machine's stage ("running", "booting", …), its readiness and what keeps
// it from being ready.
type Status struct {
	Stage string
	Ready bool
	// Unmet are the conditions the machine waits for, as MachineStatus lists them.
	Unmet []Condition
}

// Condition is one unmet readiness condition: a name ("network", "services", …) and why.
type Condition struct {
	Name   string
	Reason string
}

// Running reports whether the machine is up and ready.
func (s Status) Running() bool { return s.Stage == "running" && s.Ready }
