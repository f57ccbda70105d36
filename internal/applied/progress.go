package applied

import "time"

// Progress is what an apply leaves of its rollout where the next one finds it (beside the
// apply lock, never in the repository): the next apply of the same reviewed plan resumes
// from the node it stopped at instead of starting again.
type Progress struct {
	// PlanHash is the reviewed plan the rollout carried out.
	PlanHash string `json:"planHash"`
	// Done are the nodes brought to their desired state so far, in rollout order.
	Done []string `json:"done,omitempty"`
	// StoppedAt is the node the rollout stopped at (it failed, or a health check or the
	// lock stopped the rollout before it); "" once every node was handled.
	StoppedAt string `json:"stoppedAt,omitempty"`
	// Why the rollout stopped there.
	Why string `json:"why,omitempty"`
	// At is when the rollout ended.
	At time.Time `json:"at"`
}

// Resumes reports whether a rollout of plan continues this one: the same reviewed plan,
// stopped before it was done.
func (p *Progress) Resumes(plan string) bool {
	return p != nil && plan != "" && p.PlanHash == plan && p.StoppedAt != ""
}
