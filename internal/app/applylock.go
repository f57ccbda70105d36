package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
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
// lock not released lapses once its holder stops renewing it. lost says, once the lock is
// lost while held (taken over, or lapsed because it could not be renewed), why: the
// apply stops at its next safe point (before a node that changes, after a node's drain
// or upgrade, between the moves of a Kubernetes upgrade).
func lockApply(ctx context.Context, d *Deps, k Kube, cluster string) (release func(), lost func() error, err error) {
	who, err := holder(d)
	if err != nil {
		return nil, nil, &RefusedError{Reasons: []string{"the apply lock could not be taken:"}, Err: err}
	}

	var (
		mu     sync.Mutex
		gone   error
		noteIt = func(err error) {
			mu.Lock()
			defer mu.Unlock()

			gone = err

			d.note(fmt.Sprintf("the apply lock of %s was lost (%s): the apply stops at its next safe point\n", cluster, talos.OneLine(err)))
		}
	)

	// The notes of the wait end before anything else is said: the output is not shared.
	taken, said := make(chan struct{}), make(chan struct{})

	go func() {
		defer close(said)
		sayWaitingForLock(ctx, d, cluster, taken)
	}()

	free, err := k.Lock(ctx, cluster, who, noteIt)
	close(taken)
	<-said

	if err != nil {
		var locked *kube.LockedError
		if errors.As(err, &locked) {
			return nil, nil, &RefusedError{Reasons: []string{"another apply of this cluster is running:"}, Err: err}
		}

		return nil, nil, &RefusedError{Reasons: []string{"the apply lock could not be taken:"}, Err: fmt.Errorf("lock cluster %s: %w", cluster, err)}
	}

	release = func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()

		if err := free(rctx); err != nil {
			d.note(fmt.Sprintf("the apply lock of %s was not released (%s): it lapses once it is no longer renewed\n", cluster, talos.OneLine(err)))
		}
	}

	lost = func() error {
		mu.Lock()
		defer mu.Unlock()

		return gone
	}

	return release, lost, nil
}

// holder names who takes the apply lock: the workflow run in GitHub Actions, the user and
// host elsewhere, then a nonce of this run, so that two applies of one user on one host
// (two terminals) are two holders.
func holder(d *Deps) (string, error) {
	nonce, err := runNonce(d.Rand)
	if err != nil {
		return "", err
	}

	return holderName(d) + " #" + nonce, nil
}

// runNonce is 8 random hex digits from r (nil: crypto/rand).
func runNonce(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}

	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("a nonce for the lock holder: %w", err)
	}

	return hex.EncodeToString(b[:]), nil
}

// holderName is who runs this apply.
func holderName(d *Deps) string {
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

// The waits of taking the apply lock: the first note once it takes longer than a read and a
// write would, then one now and then, so that a run waiting for another apply's Lease to
// lapse (up to the Lease's duration) does not look hung.
const (
	lockQuietFor = 2 * time.Second
	lockSayEvery = 15 * time.Second
)

// sayWaitingForLock notes that taking the apply lock waits, until taken is closed.
func sayWaitingForLock(ctx context.Context, d *Deps, cluster string, taken <-chan struct{}) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()

	go func() {
		select {
		case <-taken:
			cancel()
		case <-wctx.Done():
		}
	}()

	lease := "kube-system/" + kube.LeaseName(cluster)
	wait, waited := lockQuietFor, time.Duration(0)

	for sleep(wctx, d, wait) == nil {
		waited += wait
		if waited == lockQuietFor {
			d.note(fmt.Sprintf("waiting for the apply lock of %s (the Lease %s): another apply holds it; talops watches it until it is seen renewed (then the apply is refused) or lapses\n", cluster, lease))
		} else {
			d.note(fmt.Sprintf("still waiting for the apply lock of %s after %s\n", cluster, waited))
		}

		wait = lockSayEvery
	}
}
