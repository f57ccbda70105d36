package app

import (
	"fmt"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/window"
)

// OutsideWindowError says apply changed nothing because none of the cluster's maintenance
// windows is open: a scheduled workflow runs it again later.
type OutsideWindowError struct {
	Cluster string
	// When says when the next window opens.
	When string
}

func (e *OutsideWindowError) Error() string {
	return fmt.Sprintf("apply waits for a maintenance window, no node was changed: cluster %s is outside every window of talops.yaml, and %s; --ignore-window applies now (for emergencies; the report records it)", e.Cluster, e.When)
}

// maintenanceWindow checks the cluster's windows before any node is read: inside one (or
// with none) it returns "", outside one an *OutsideWindowError, unless ignore (or a dry
// run, which changes nothing) lets apply go on: then it returns what the report records.
func maintenanceWindow(d *Deps, c *cluster.Cluster, ignore, dryRun bool) (string, error) {
	s, err := c.Schedule()
	if err != nil {
		return "", err
	}

	at := nowOrSystem(d)()

	st := s.At(at)
	if st.Open {
		return "", nil
	}

	when := window.Describe(st, at)

	switch {
	case ignore:
		return "outside every maintenance window, applied with --ignore-window (" + when + ")", nil
	case dryRun:
		return "outside every maintenance window: a dry run changes nothing, a real apply would wait (" + when + ")", nil
	default:
		return "", &OutsideWindowError{Cluster: c.Spec.Cluster.Name, When: when}
	}
}
