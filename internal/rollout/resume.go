package rollout

import (
	"github.com/talops/talops/internal/talos"
)

// regate settles the node a rollout of the same plan stopped at: it already runs its
// desired config, so nothing is sent; it must pass its health gate (running and ready,
// on its version and config) before the rollout goes on, and is then uncordoned (the
// failed gate had left it cordoned).
func (st *stepper) regate() NodeResult {
	if st.o.DryRun {
		return st.outcome(DryRun, "the rollout stopped here last time: talops would wait for its health gate, then uncordon it")
	}

	st.say("the rollout stopped here last time: waiting for its health gate")

	ready := health{status: talos.Status{Stage: "running", Ready: true}}

	if _, err := gate(st.ctx, st.d, st.s, st.o, ready, gateWant{version: st.s.Version, config: st.s.Config}); err != nil {
		return st.fail("the rollout stopped here last time, and the health gate", err)
	}

	detail := "the rollout stopped here last time; it runs its desired config and is healthy"

	if st.o.Kube != nil && !st.o.NoDrain {
		if err := st.uncordon(); err != nil {
			return st.outcome(Failed, detail+"; then "+talos.OneLine(err)+": the node stays cordoned")
		}

		st.say("uncordoned")

		detail += ", uncordoned"
	}

	return st.outcome(Applied, detail)
}
