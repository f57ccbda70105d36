package door

import (
	"fmt"
	"strings"

	"github.com/talops/talops/internal/plan"
)

// LiveUnreadable is why a plan against the running nodes fails when none of them could be
// read: a plan of nothing read is no answer, and a nightly drift check must not pass on it.
func LiveUnreadable(p *plan.Plan) string {
	return fmt.Sprintf("plan --live read no node: every node is unreachable (%s)", strings.Join(p.Names(plan.Unknown), ", "))
}

// LivePlan is how a door shows a plan against the running nodes: one that read no node is
// refused (refused says why) and shown without its hash, which no apply may be given.
func LivePlan(p *plan.Plan) (shown *plan.Plan, refused string) {
	if !p.Unreadable() {
		return p, ""
	}

	unhashed := *p
	unhashed.Hash = ""

	return &unhashed, LiveUnreadable(p)
}
