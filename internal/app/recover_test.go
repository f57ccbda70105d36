package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/backup"
)

// A control plane whose machine was lost while the other two kept quorum comes back with
// --node: its stale member is removed, asked of a healthy one, before the new machine,
// waiting in maintenance mode, gets its config and joins etcd again.
func TestRecover_NodeRemovesTheStaleMemberThenTheControlPlaneJoinsAgain(t *testing.T) {
	t.Parallel()

	l := startNewCluster(t)
	l.create(t)

	l.kill("k8s-node2")
	l.boot("k8s-node2")

	before := len(l.journal.Entries())

	res, err := app.Recover(context.Background(), l.d, app.RecoverOptions{Dir: "lab", Node: "k8s-node2"})
	if err != nil {
		t.Fatalf("recover --node: %v", err)
	}

	wantActions := []string{backup.ActionRemoveMember, backup.ActionConfigure, backup.ActionJoin}
	if got := res.Plan.Nodes[0]; got.Name != "k8s-node2" || !slices.Equal(got.Actions, wantActions) || got.State != "in maintenance mode" {
		t.Errorf("planned %+v, want k8s-node2 in maintenance mode: %q", got, wantActions)
	}

	calls := l.journal.Entries()[before:]
	if len(calls) != 2 || !strings.HasPrefix(calls[0], "k8s-master EtcdRemoveMemberByID ") || calls[1] != "k8s-node2 ApplyConfiguration AUTO (maintenance)" {
		t.Errorf("calls %q, want its member removed on k8s-master, then its config sent", calls)
	}

	if got := l.etcd.EtcdMembers(); !slices.Equal(got, []string{"k8s-master", "k8s-node3", "k8s-node2"}) {
		t.Errorf("etcd members %v, want k8s-node2 joined again", got)
	}
}

// Removing a member needs a majority of etcd's voting members: with two of three control
// planes gone, --node refuses and changes nothing.
func TestRecover_NodeRefusedWhenRemovingTheMemberWouldLoseQuorum(t *testing.T) {
	t.Parallel()

	l := startNewCluster(t)
	l.create(t)

	l.kill("k8s-node3")
	l.kill("k8s-node2")
	l.boot("k8s-node2")

	before := len(l.journal.Entries())

	_, err := app.Recover(context.Background(), l.d, app.RecoverOptions{Dir: "lab", Node: "k8s-node2"})

	var refused *app.RefusedRecoveryError
	if !errors.As(err, &refused) || err.Error() != "recover refused, nothing was changed: removing k8s-node2's member would lose quorum: 1 of etcd's 3 voting members are healthy, 2 are needed" {
		t.Errorf("recover --node: %v", err)
	}

	if calls := l.journal.Entries()[before:]; len(calls) != 0 {
		t.Errorf("nodes were changed: %q", calls)
	}

	if got := l.etcd.EtcdMembers(); !slices.Equal(got, []string{"k8s-master", "k8s-node2", "k8s-node3"}) {
		t.Errorf("etcd members %v, want them as they were", got)
	}
}
