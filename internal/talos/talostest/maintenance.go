package talostest

import (
	"context"
	"fmt"

	"github.com/cosi-project/runtime/pkg/resource"
	"github.com/cosi-project/runtime/pkg/state"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/config/configdiff"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"github.com/siderolabs/talos/pkg/machinery/resources/runtime"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// startMaintenance writes the state of a node that waits for its first config: a machine
// status in stage maintenance, its extensions, and neither machine config nor type.
func (m *machineService) startMaintenance(ctx context.Context) error {
	m.maintenance.Store(true)

	st := runtime.NewMachineStatus()
	st.TypedSpec().Stage = runtime.MachineStageMaintenance
	st.TypedSpec().Status.Ready = false

	ext := runtime.NewExtensionStatus(runtime.NamespaceName, "0")
	ext.TypedSpec().Metadata.Name = "iscsi-tools"
	ext.TypedSpec().Metadata.Version = "v0.2.0"

	for _, r := range []resource.Resource{st, ext} {
		if err := m.state.Create(ctx, r); err != nil {
			return err
		}
	}

	return m.publishNames(ctx, nil)
}

// applyMaintenance is ApplyConfiguration of machined in maintenance mode (v1.14.1,
// v1alpha1_server.go with inMaintenance set): any role may send it, the REBOOT mode is
// taken as NO_REBOOT, and the node then leaves maintenance mode: it stops serving the
// maintenance API and comes back over mTLS with the config, in stage booting then running.
// m.applyMu is held.
func (m *machineService) applyMaintenance(ctx context.Context, req *machine.ApplyConfigurationRequest) (*machine.ApplyConfigurationResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()

	provider, err := configloader.NewFromBytes(req.GetData())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}

	mode := req.GetMode()
	if mode == machine.ApplyConfigurationRequest_REBOOT { //nolint:staticcheck // maintenance takes it as NO_REBOOT
		mode = machine.ApplyConfigurationRequest_NO_REBOOT
	}

	warnings, err := m.validate(ctx, provider, rebootsOnApply(m.version))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}

	//nolint:exhaustive // the others are refused
	switch mode {
	case machine.ApplyConfigurationRequest_AUTO, machine.ApplyConfigurationRequest_TRY, machine.ApplyConfigurationRequest_NO_REBOOT:
		mode = machine.ApplyConfigurationRequest_NO_REBOOT
	case machine.ApplyConfigurationRequest_STAGED:
	default:
		return nil, status.Errorf(codes.InvalidArgument, "incorrect mode '%s' specified for the apply config call", mode)
	}

	details := detailsLive
	if mode == machine.ApplyConfigurationRequest_STAGED {
		details = detailsStaged
	}

	if req.GetDryRun() {
		m.dryRuns++

		diff, err := configdiff.DiffConfigs(nil, provider)
		if err != nil {
			return nil, fmt.Errorf("failed to generate diff: %w", err)
		}

		return response(mode, nil, fmt.Sprintf("Dry run summary:\n%s (skipped in dry-run).\nConfig diff:\n\n%s", details, diff)), nil
	}

	m.applied = append(m.applied, Applied{Mode: req.GetMode().String(), Config: req.GetData()})
	m.node.Journal.add("%s ApplyConfiguration %s (maintenance)", m.node.Name, req.GetMode())

	if err := m.configure(ctx, req.GetData()); err != nil {
		return nil, err
	}

	return response(mode, warnings, details), nil
}

// configure makes data the node's config and takes it out of maintenance mode a moment
// later: its API goes away, then answers over mTLS; m.mu is held.
func (m *machineService) configure(ctx context.Context, data []byte) error {
	mc, err := machineConfig(data)
	if err != nil {
		return err
	}

	if err := m.state.Create(ctx, mc); err != nil {
		return err
	}

	machineType := config.NewMachineType()
	if mc.Provider().Machine() != nil {
		machineType.SetMachineType(mc.Provider().Machine().Type())
	}

	if err := createOrUpdate(ctx, m.state, machineType); err != nil {
		return err
	}

	m.controlPlane.Store(machineType.MachineType().IsControlPlane())
	m.active, m.persisted, m.current = data, data, mc.Provider()

	if err := syncStaticPods(ctx, m.state, m.node.Name, mc.Provider()); err != nil {
		return err
	}

	if err := m.publishNames(ctx, mc.Provider()); err != nil {
		return err
	}

	m.rebooting = true
	timing := m.node.Reboot.withDefaults()

	m.wg.Go(func() {
		if !m.sleep(timing.Answering) {
			return
		}

		m.host.down()
		m.maintenance.Store(false)

		m.mu.Lock()
		err := m.setStage(context.Background(), runtime.MachineStageBooting)
		m.mu.Unlock()

		if c := m.node.Cluster; c != nil {
			if m.controlPlane.Load() {
				c.join(m.node.Name, m.node.Address)
			}

			c.register(m)
		}

		if err != nil || !m.sleep(timing.Down) {
			return
		}

		if err := m.host.up(); err != nil || !m.sleep(timing.Booting) {
			return
		}

		m.mu.Lock()
		defer m.mu.Unlock()

		m.rebooting = false
		_ = m.setStage(context.Background(), runtime.MachineStageRunning) // in-memory state
	})

	return nil
}

// createOrUpdate writes r whether or not it exists.
func createOrUpdate(ctx context.Context, st state.State, r resource.Resource) error {
	cur, err := st.Get(ctx, r.Metadata())

	switch {
	case state.IsNotFoundError(err):
		return st.Create(ctx, r)
	case err != nil:
		return err
	}

	r.Metadata().SetVersion(cur.Metadata().Version())

	return st.Update(ctx, r)
}

// InMaintenance reports whether the node waits in maintenance mode for a config.
func (s *Server) InMaintenance() bool { return s.m.maintenance.Load() }
