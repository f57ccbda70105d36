package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/rules"
)

// planChunk is how many nodes of each state a plan (or validate) renders, judges and
// compares before it lets go of them: it holds the configs of one chunk, not of the cluster.
const planChunk = 256

// planStreamed is Plan against another state of the repository (opts.Base or
// opts.Against), a chunk of nodes at a time: the desired state's next nodes and the
// current state's nodes of the same names are rendered, judged (rules.Judge), compared
// (rules.Comparison) and planned (plan.Computation), then dropped with the patch files
// and configs they loaded; the nodes only the current state has come last. Its result is
// what planFrom gives over every node at once (TestPlanStreamed_IsThePlanOverEveryNode).
func planStreamed(ctx context.Context, d *Deps, opts PlanOptions) (*PlanResult, error) {
	head, err := loadToCompare(ctx, d, opts.Dir, false)
	if err != nil {
		return nil, err
	}

	base, err := loadOther(ctx, d, opts.Dir, opts.Base, opts.Against, head, false)
	if errors.Is(err, errNoBase) {
		// A new cluster: nothing to compare versions with, every node is created.
		base, err = nil, nil
	}

	if err != nil {
		return nil, err
	}

	s := newStream(ctx, d, opts, head, base)

	for chunk := range slices.Chunk(head.Cluster.Spec.Nodes, cmp.Or(opts.chunk, planChunk)) {
		if err := s.nodes(ctx, chunk); err != nil {
			return nil, err
		}
	}

	for chunk := range slices.Chunk(s.removed(), cmp.Or(opts.chunk, planChunk)) {
		if err := s.gone(ctx, chunk); err != nil {
			return nil, err
		}
	}

	return s.result()
}

// stream is a plan being computed a chunk at a time.
type stream struct {
	head, base           *Repo
	judgeHead, judgeBase *rules.Judge
	compare              *rules.Comparison
	computation          *plan.Computation
	// given are the current state's nodes given so far, with the desired ones of their names.
	given map[string]bool
	// broken is the first desired node that did not render: no plan then, its finding says why.
	broken error
}

func newStream(ctx context.Context, d *Deps, opts PlanOptions, head, base *Repo) *stream {
	headIn := rulesInput(ctx, d, head, opts.Offline)
	s := &stream{head: head, base: base, judgeHead: rules.NewJudge(headIn), given: map[string]bool{}}

	var current plan.State

	if base != nil {
		baseIn := rulesInput(ctx, d, base, opts.Offline)
		s.judgeBase, s.compare = rules.NewJudge(baseIn), rules.NewComparison(baseIn, headIn)
		current = stateOf(base)
	}

	s.computation = plan.NewComputation(head.Cluster.Spec.Cluster.Name, current, stateOf(head), planMasker(d, head, base))

	return s
}

// nodes renders, judges, compares and plans the desired state's next nodes with the
// current state's nodes of the same names, then lets go of them.
func (s *stream) nodes(ctx context.Context, chunk []cluster.Node) error {
	desired := s.head.renderer.Nodes(ctx, chunk)

	var current []render.Result

	if s.base != nil {
		var same []cluster.Node

		for _, n := range chunk {
			if i := s.base.Cluster.NodeIndex(n.Name); i >= 0 {
				same = append(same, s.base.Cluster.Spec.Nodes[i])
				s.given[n.Name] = true
			}
		}

		current = s.base.renderer.Nodes(ctx, same)
	}

	defer s.head.patches.Forget()

	if err := s.judge(ctx, current, desired); err != nil {
		return err
	}

	if s.compare != nil {
		s.compare.Nodes(current, desired)
	}

	return s.plan(ctx, current, desired)
}

// removed are the current state's nodes the desired state does not have, in its order.
func (s *stream) removed() []cluster.Node {
	if s.base == nil {
		return nil
	}

	return slices.DeleteFunc(slices.Clone(s.base.Cluster.Spec.Nodes), func(n cluster.Node) bool { return s.given[n.Name] })
}

// gone renders, judges and plans nodes only the current state has.
func (s *stream) gone(ctx context.Context, chunk []cluster.Node) error {
	current := s.base.renderer.Nodes(ctx, chunk)

	defer s.head.patches.Forget()

	if err := s.judge(ctx, current, nil); err != nil {
		return err
	}

	if s.broken != nil {
		return nil
	}

	states, err := nodeStates(s.base, current, true)
	if err != nil {
		return fmt.Errorf("current state: %w", err)
	}

	return s.computation.Removed(ctx, states)
}

func (s *stream) judge(ctx context.Context, current, desired []render.Result) error {
	if err := s.judgeHead.Nodes(ctx, desired); err != nil {
		return err
	}

	if s.judgeBase != nil {
		return s.judgeBase.Nodes(ctx, current)
	}

	return nil
}

// plan plans a chunk, until a desired node does not render.
func (s *stream) plan(ctx context.Context, current, desired []render.Result) error {
	if s.broken != nil {
		return nil
	}

	want, err := nodeStates(s.head, desired, false)
	if err != nil {
		s.broken = err

		return nil
	}

	have, err := nodeStates(s.base, current, true)
	if err != nil {
		return fmt.Errorf("current state: %w", err)
	}

	return s.computation.Nodes(ctx, have, want)
}

// result is the plan with the findings of the desired state and the version bump, as
// planFrom makes it.
func (s *stream) result() (*PlanResult, error) {
	findings := s.judgeHead.Findings()
	res := &PlanResult{Findings: findings, Nodes: len(s.head.Cluster.Spec.Nodes)}

	if s.compare != nil {
		bump := s.compare.Bump(s.judgeBase.ReleaseFindings(), s.judgeHead.ReleaseFindings())
		res.Findings, res.Bump = merge(findings, bump.Findings), bump
	}

	if finding.HasErrors(findings) {
		// No plan for a desired state with errors; the findings and the version bump (the
		// reason for many such pull requests) still say what the change does.
		res.Plan = plan.BlockedPlan(s.head.Cluster.Spec.Cluster.Name)

		return res, nil
	}

	if s.broken != nil {
		// A node that does not render is always an error finding; should one not be, the
		// plan fails rather than leave the node out.
		return nil, fmt.Errorf("desired state: %w", s.broken)
	}

	res.Plan = s.computation.Plan()

	return res, nil
}
