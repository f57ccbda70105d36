package rollout

import (
	"context"
	"errors"
	"fmt"
	"strings"

	checks "github.com/talops/talops/internal/health"
	"github.com/talops/talops/internal/talos"
)

// HealthReader reads the Kubernetes objects a health check names.
type HealthReader interface {
	HealthObjects(ctx context.Context, c checks.Check) ([]checks.Object, error)
}

// checkHealth evaluates every health check, each until it passes or its timeout ends.
// when says where the rollout stands ("before k8s-node2", "after the last node"); the
// error names the check that held it, the object and the values its expression saw.
func (o Options) checkHealth(ctx context.Context, when string) error {
	if len(o.Health) == 0 || o.HealthReader == nil {
		return nil
	}

	for _, c := range o.Health {
		wait := o
		wait.GateTimeout = c.Timeout

		var (
			said    bool
			verdict error // the last answer of the check itself, not of the read
		)

		err := poll(ctx, wait, func(ctx context.Context) error {
			objects, err := o.HealthReader.HealthObjects(ctx, c)
			if err == nil {
				err = unhealthy(c, objects)
				verdict = err
			} else if verdict != nil {
				// A failed read (the API's rate limit near the deadline, a restart) says
				// less than the check's last answer: both are told.
				err = fmt.Errorf("%w (the next read failed: %s)", verdict, talos.OneLine(err))
			}

			if err != nil && !said && o.Progress != nil {
				said = true

				o.Progress(Line(fmt.Sprintf("health check %s %s: waiting up to %s (%v)", c.Name, when, c.Timeout, err)))
			}

			return err
		})
		if err != nil {
			return fmt.Errorf("health check %s held the rollout %s: %w", c.Name, when, err)
		}
	}

	return nil
}

// unhealthy says which objects fail the check, with the values the expression saw: nil
// when every one passes. No object at all fails it: a check of nothing is no check.
func unhealthy(c checks.Check, objects []checks.Object) error {
	if len(objects) == 0 {
		return fmt.Errorf("no object matched: %s", c.Objects())
	}

	var bad []string

	for _, obj := range objects {
		v := c.Expr.Eval(obj.Content)
		if v.OK {
			continue
		}

		why := strings.Join(v.Seen, ", ")
		if v.Err != nil {
			why = strings.TrimPrefix(why+", ", ", ") + v.Err.Error()
		}

		if why == "" {
			why = "the expression is false"
		}

		bad = append(bad, c.Kind+" "+obj.Name+": "+why)
	}

	if len(bad) == 0 {
		return nil
	}

	if len(bad) > 3 {
		bad = append(bad[:3], fmt.Sprintf("and %d more", len(bad)-3))
	}

	return errors.New(strings.Join(bad, "; "))
}
