package talostest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configdiff"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/constants"
	"github.com/siderolabs/talos/pkg/machinery/role"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/talops/talops/internal/catalog"
)

// Mode details as machined answers them (v1alpha1_server.go, v1.13.9 and v1.14.1).
const (
	detailsLive   = "Applied configuration without a reboot"
	detailsReboot = "Applied configuration with a reboot"
	detailsStaged = "Staged configuration to be applied after the next reboot"
)

// rebootsOnApply reports whether the node's release is one whose AUTO mode reboots by
// itself (up to 1.13); 1.14 never reboots on apply. An unreadable tag behaves as 1.14.
func rebootsOnApply(tag string) bool {
	c, err := catalog.CompareMinor(tag, "1.13")
	if err != nil {
		return false
	}

	older, _ := catalog.CompareMinor(tag, "1.0")

	return c <= 0 && older >= 0
}

// runtimeMode is the platform mode the config is validated against, as machined's
// modeWrapper: a running node is installed, so nothing requires an install.
type runtimeMode string

func (r runtimeMode) String() string      { return string(r) }
func (runtimeMode) RequiresInstall() bool { return false }
func (r runtimeMode) InContainer() bool   { return r == "container" }

// ApplyConfiguration answers as machined of the node's release does:
// v1.14.1 and v1.13.9 (the same as v1.12.9 on a configured node) in
// internal/app/machined/internal/server/v1alpha1/v1alpha1_server.go.
func (m *machineService) ApplyConfiguration(ctx context.Context, req *machine.ApplyConfigurationRequest) (*machine.ApplyConfigurationResponse, error) {
	if err := m.fails("ApplyConfiguration"); err != nil {
		return nil, err
	}

	if !m.applyMu.TryLock() {
		return nil, status.Error(codes.FailedPrecondition, "another apply configuration is already in progress")
	}
	defer m.applyMu.Unlock()

	if m.maintenance.Load() {
		return m.applyMaintenance(ctx, req)
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	legacy := rebootsOnApply(m.version)

	provider, err := m.accept(ctx, req, legacy)
	if err != nil {
		return nil, err
	}

	warnings, err := m.validate(ctx, provider, legacy)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}

	mode, details, reason, err := m.resolve(req.GetMode(), provider, legacy)
	if err != nil {
		return nil, err
	}

	if req.GetDryRun() {
		return m.dryRun(mode, details, provider)
	}

	if !legacy && mode != machine.ApplyConfigurationRequest_TRY {
		m.cancelRollback()
	}

	if details, err = m.commit(ctx, req, mode, details); err != nil {
		return nil, err
	}

	return response(mode, warnings, details+reason), nil
}

// accept checks what the real node checks before it reads the config's meaning: a reboot
// pending, the caller's role, a config that loads with a v1alpha1 document, the mode.
func (m *machineService) accept(ctx context.Context, req *machine.ApplyConfigurationRequest, legacy bool) (config.Provider, error) {
	if legacy && m.applyRebooted {
		return nil, status.Error(codes.FailedPrecondition, "configuration was already applied and node is rebooting, cannot apply more configuration changes until next reboot")
	}

	// A configured node: os:reader is only enough in maintenance mode.
	if !rolesFrom(ctx).Includes(role.Admin) {
		return nil, errNotAuthorized
	}

	mode := req.GetMode()

	if legacy && mode != machine.ApplyConfigurationRequest_TRY {
		m.cancelRollback()
	}

	provider, err := configloader.NewFromBytes(req.GetData())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}

	if provider.RawV1Alpha1() == nil {
		return nil, status.Error(codes.InvalidArgument, "the applied machine configuration doesn't contain v1alpha1 config, did you mean to patch the machine config instead?")
	}

	//nolint:staticcheck // the REBOOT mode is what 1.14 refuses
	if !legacy && mode == machine.ApplyConfigurationRequest_REBOOT {
		return nil, status.Error(codes.Unimplemented, "the REBOOT mode is not supported, please use AUTO or NO_REBOOT modes instead")
	}

	return provider, nil
}

// dryRun answers as the real node does: the diff, no warnings, nothing changed.
func (m *machineService) dryRun(mode machine.ApplyConfigurationRequest_Mode, details string, provider config.Provider) (*machine.ApplyConfigurationResponse, error) {
	m.dryRuns++

	diff, err := configdiff.DiffConfigs(m.current, provider)
	if err != nil {
		return nil, fmt.Errorf("failed to generate diff: %w", err)
	}

	if diff == "" {
		diff = "No changes."
	}

	return response(mode, nil, fmt.Sprintf("Dry run summary:\n%s (skipped in dry-run).\nConfig diff:\n\n%s", details, diff)), nil
}

// commit records the apply and takes the config on in the resolved mode.
func (m *machineService) commit(ctx context.Context, req *machine.ApplyConfigurationRequest, mode machine.ApplyConfigurationRequest_Mode, details string) (string, error) {
	m.applied = append(m.applied, Applied{Mode: req.GetMode().String(), Config: req.GetData()})
	m.node.Journal.add("%s ApplyConfiguration %s", m.node.Name, req.GetMode())

	var err error

	//nolint:exhaustive // resolve leaves only these
	switch mode {
	case machine.ApplyConfigurationRequest_TRY:
		timeout := constants.ConfigTryTimeout
		if req.GetTryModeTimeout() != nil {
			timeout = req.GetTryModeTimeout().AsDuration()
		}

		details += fmt.Sprintf("\nThe config is applied in 'try' mode and will be automatically reverted back in %s", timeout)

		m.rollbackAfter(timeout)

		err = m.activate(ctx, req.GetData())
	case machine.ApplyConfigurationRequest_NO_REBOOT:
		m.persisted = req.GetData()
		err = m.activate(ctx, req.GetData())
	case machine.ApplyConfigurationRequest_STAGED:
		m.persisted = req.GetData()
	case machine.ApplyConfigurationRequest_REBOOT: //nolint:staticcheck // up to 1.13
		m.persisted = req.GetData()
		m.applyRebooted = true
		m.reboot()
	}

	return details, err
}

// validate runs what machined runs before it takes a config: Validate and RuntimeValidate
// up to 1.13, ValidateAtRuntime from 1.14, with the node's platform mode.
func (m *machineService) validate(ctx context.Context, provider config.Provider, legacy bool) ([]string, error) {
	mode := runtimeMode(m.node.platformMode())

	if !legacy {
		return provider.ValidateAtRuntime(ctx, m.state, mode)
	}

	//nolint:staticcheck // the calls Talos 1.13 makes
	warnings, err := provider.Validate(mode)
	if err != nil {
		return nil, err
	}

	//nolint:staticcheck // the calls Talos 1.13 makes
	more, err := provider.RuntimeValidate(ctx, m.state, mode)
	if err != nil {
		return nil, err
	}

	return slices.Concat(warnings, more), nil
}

// resolve decides the mode the node takes the config in, the details it answers and, for a
// 1.13 AUTO that reboots, the reason appended to them (not in a dry run's summary).
func (m *machineService) resolve(mode machine.ApplyConfigurationRequest_Mode, provider config.Provider, legacy bool) (resolved machine.ApplyConfigurationRequest_Mode, details, reason string, err error) {
	//nolint:exhaustive // the others are refused
	switch mode {
	case machine.ApplyConfigurationRequest_AUTO:
		if !legacy {
			return machine.ApplyConfigurationRequest_NO_REBOOT, detailsLive, "", nil
		}

		if err := canApplyImmediate(m.current, provider); err != nil {
			return machine.ApplyConfigurationRequest_REBOOT, detailsReboot, ": " + err.Error(), nil //nolint:staticcheck // up to 1.13
		}

		return machine.ApplyConfigurationRequest_NO_REBOOT, detailsLive, "", nil
	case machine.ApplyConfigurationRequest_TRY, machine.ApplyConfigurationRequest_NO_REBOOT:
		if legacy {
			if err := canApplyImmediate(m.current, provider); err != nil {
				return mode, "", "", status.Error(codes.InvalidArgument, err.Error())
			}
		}

		return mode, detailsLive, "", nil
	case machine.ApplyConfigurationRequest_STAGED:
		return mode, detailsStaged, "", nil
	case machine.ApplyConfigurationRequest_REBOOT: //nolint:staticcheck // only up to 1.13 gets here
		return mode, detailsReboot, "", nil
	default:
		return mode, "", "", status.Errorf(codes.InvalidArgument, "incorrect mode '%s' specified for the apply config call", mode)
	}
}

func response(mode machine.ApplyConfigurationRequest_Mode, warnings []string, details string) *machine.ApplyConfigurationResponse {
	return &machine.ApplyConfigurationResponse{Messages: []*machine.ApplyConfiguration{{Mode: mode, Warnings: warnings, ModeDetails: details}}}
}

// rollbackAfter arms the try mode's rollback to the persisted config; m.mu is held.
func (m *machineService) rollbackAfter(timeout time.Duration) {
	m.cancelRollback()

	m.rollback = time.AfterFunc(timeout, func() {
		m.mu.Lock()
		defer m.mu.Unlock()

		if !bytes.Equal(m.active, m.persisted) {
			_ = m.activate(context.Background(), m.persisted) // the persisted config loaded before
		}
	})
}

// cancelRollback is CancelConfigRollbackTimeout: any apply but a try keeps the config.
func (m *machineService) cancelRollback() {
	if m.rollback != nil {
		m.rollback.Stop()
		m.rollback = nil
	}
}
