package talos

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/siderolabs/talos/pkg/machinery/api/common"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"

	"github.com/talops/talops/internal/catalog"
)

// LifecycleAPI reports whether a node running Talos version v serves LifecycleService and
// ImageService (Talos 1.13 and later). An unreadable version answers false: the legacy
// upgrade call is the one every release serves.
func LifecycleAPI(v string) bool {
	c, err := catalog.CompareMinor(v, "1.13")

	return err == nil && c >= 0
}

// EtcdMember is one member of the etcd cluster as a control plane lists it.
type EtcdMember struct {
	ID       uint64
	Hostname string
	Learner  bool
	// PeerURLs are where the other members reach it (https://ADDRESS:2380).
	PeerURLs []string
}

// systemContainerd is where Talos keeps its own images, the installer among them.
func systemContainerd() *common.ContainerdInstance {
	return &common.ContainerdInstance{Driver: common.ContainerDriver_CONTAINERD, Namespace: common.ContainerdNamespace_NS_SYSTEM}
}

func (n *clientNode) PullImage(ctx context.Context, image string) error {
	return n.pull(ctx, systemContainerd(), image)
}

func (n *clientNode) Upgrade(ctx context.Context, image string) error {
	stream, err := n.c.LifecycleClient.Upgrade(n.with(ctx), &machine.LifecycleServiceUpgradeRequest{
		Containerd: systemContainerd(),
		Source:     &machine.InstallArtifactsSource{ImageName: image},
	})
	if err != nil {
		return err
	}

	var last string

	for {
		resp, err := stream.Recv()

		switch {
		case errors.Is(err, io.EOF):
			// Without an exit code nothing says the new image was installed.
			return errors.New("the node ended the upgrade without an exit code")
		case err != nil:
			return err
		}

		switch p := resp.GetProgress().GetResponse().(type) {
		case *machine.LifecycleServiceInstallProgress_Message:
			last = p.Message
		case *machine.LifecycleServiceInstallProgress_ExitCode:
			if p.ExitCode != 0 {
				if last != "" {
					return fmt.Errorf("the installer exited with code %d: %s", p.ExitCode, last)
				}

				return fmt.Errorf("the installer exited with code %d", p.ExitCode)
			}

			return nil
		}
	}
}

func (n *clientNode) LegacyUpgrade(ctx context.Context, image string) error {
	// Preserve keeps the EPHEMERAL partition on releases that would otherwise wipe it. With
	// it, machined 1.12/1.13 skip their own etcd check (ValidateForUpgrade runs only when
	// neither forced nor preserving): the rollout's etcd gate before a control plane is the
	// check.
	//nolint:staticcheck // the legacy call is the only one nodes before 1.13 serve
	_, err := n.c.UpgradeWithOptions(n.with(ctx),
		client.WithUpgradeImage(image), client.WithUpgradePreserve(true), client.WithUpgradeRebootMode(machine.UpgradeRequest_DEFAULT))

	return err
}

func (n *clientNode) EtcdMembers(ctx context.Context) ([]EtcdMember, error) {
	resp, err := n.c.EtcdMemberList(n.with(ctx), &machine.EtcdMemberListRequest{})
	if err != nil {
		return nil, err
	}

	var out []EtcdMember

	for _, m := range resp.GetMessages() {
		for _, mem := range m.GetMembers() {
			out = append(out, EtcdMember{ID: mem.GetId(), Hostname: mem.GetHostname(), Learner: mem.GetIsLearner(), PeerURLs: mem.GetPeerUrls()})
		}
	}

	return out, nil
}

func (n *clientNode) EtcdErrors(ctx context.Context) ([]string, error) {
	resp, err := n.c.EtcdStatus(n.with(ctx))
	if err != nil {
		return nil, err
	}

	var out []string

	for _, m := range resp.GetMessages() {
		out = append(out, m.GetMemberStatus().GetErrors()...)
	}

	return out, nil
}

// EtcdSnapshot streams a snapshot of the node's etcd member into w (control planes only).
func (n *clientNode) EtcdSnapshot(ctx context.Context, w io.Writer) error {
	r, err := n.c.EtcdSnapshot(n.with(ctx), &machine.EtcdSnapshotRequest{})
	if err != nil {
		return err
	}
	defer r.Close() //nolint:errcheck // the copy's error matters

	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("read the snapshot: %w", err)
	}

	return nil
}
