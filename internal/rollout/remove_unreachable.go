package rollout

import (
	"errors"
	"strings"
)

// removeUnreachable takes out of the cluster what it keeps of a node that does not answer
// (a dead disk, a VM deleted by hand): its etcd member, removed on another control plane,
// and its Kubernetes Node. It is neither drained nor reset: there is nothing to ask. A node
// that answers again is not removed this way: the reviewed plan said it did not.
func (st *stepper) removeUnreachable() NodeResult {
	if st.answers(st.ctx) {
		return st.fail("not removed", errors.New("it answers now, but the plan removes it as a node that does not: plan again (talops plan --live), which removes it with a drain and a reset"))
	}

	if st.controlPlane() {
		if err := etcdGateListing(st.ctx, st.d, st.members, 1, st.o); err != nil {
			return st.fail("etcd not healthy on the other control planes before its member is removed", err)
		}

		if len(st.members) > 0 {
			if err := st.snapshotFrom(st.members[0].Address); err != nil {
				return st.fail("etcd snapshot before the first control-plane change", err)
			}
		}
	}

	if st.o.DryRun {
		return st.outcome(DryRun, "talops would "+unreachableRemoval(st.controlPlane(), st.o.Kube != nil))
	}

	var done []string

	if st.controlPlane() {
		st.say("removing its etcd member")

		removedHere, err := st.leftEtcd()
		if err != nil {
			return st.fail("its etcd member not removed", err)
		}

		left := "no etcd member to remove"
		if removedHere {
			left = "etcd member removed"
		}

		done = append(done, left)
	}

	done, err := st.deleteNode(done)
	if err != nil {
		return st.fail(strings.Join(append(done, "then deleting its Node"), ", "), err)
	}

	return st.outcome(Applied, "removed without a drain or a reset (it does not answer): "+strings.Join(done, ", "))
}

// unreachableRemoval says what removing a node that does not answer does.
func unreachableRemoval(controlPlane, kube bool) string {
	var parts []string

	if controlPlane {
		parts = append(parts, "remove its etcd member")
	}

	if kube {
		parts = append(parts, "delete its Node")
	}

	if len(parts) == 0 {
		return "leave it (it does not answer, and no Kubernetes API is given to delete its Node)"
	}

	return strings.Join(parts, " and ") + " (it does not answer: no drain, no reset)"
}
