package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/talops/talops/internal/kube"
	"github.com/talops/talops/internal/talos"
)

// releaseTimeout bounds the release of the apply lock, on a context of its own: an
// interrupted apply still gives the lock back rather than leave it to expire.
const releaseTimeout = 10 * time.Second

// lockApply takes the cluster's apply lock for this run, so that two applies of one
// cluster never change nodes at once. Another holder refuses the apply, naming it and
// since when. The release it returns gives the lock back and never fails the apply: a
// lock not released lapses once its holder stops renewing it.
func lockApply(ctx context.Context, d *Deps, k Kube, cluster string) (release func(), err error) {
	who := holder(d)

	free, err := k.Lock(ctx, cluster, who)
	if err != nil {
		var locked *kube.LockedError
		if errors.As(err, &locked) {
			return nil, &RefusedError{Reasons: []string{"another apply of this cluster is running:"}, Err: err}
		}

		return nil, &RefusedError{Reasons: []string{"the apply lock could not be taken:"}, Err: fmt.Errorf("lock cluster %s: %w", cluster, err)}
	}

	return func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()

		if err := free(rctx); err != nil {
			d.note(fmt.Sprintf("the apply lock of %s was not released (%s): it lapses once it is no longer renewed\n", cluster, talos.OneLine(err)))
		}
	}, nil
}

// holder names who takes the apply lock: the workflow run in GitHub Actions, the user and
// host elsewhere.
func holder(d *Deps) string {
	if d.Getenv("GITHUB_ACTIONS") == "true" {
		return fmt.Sprintf("github-actions %s run %s (%s)", d.Getenv("GITHUB_REPOSITORY"), d.Getenv("GITHUB_RUN_ID"), d.Getenv("GITHUB_ACTOR"))
	}

	user := "unknown"

	for _, v := range []string{"USER", "LOGNAME", "USERNAME"} {
		if u := d.Getenv(v); u != "" {
			user = u

			break
		}
	}

	host := "unknown"

	if d.Hostname != nil {
		if h, err := d.Hostname(); err == nil && h != "" {
			host = h
		}
	}

	return user + "@" + host
}
