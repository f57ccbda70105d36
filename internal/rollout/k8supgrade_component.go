package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// desiredImage is the image a config sets for component ("" when it cannot be read).
func desiredImage(config []byte, component string) string {
	cfg, err := configloader.NewFromBytes(config)
	if err != nil {
		return ""
	}

	return plan.ComponentImage(cfg, component)
}

// component moves one component on one node: the next of its step configs, applied
// without a reboot, then the wait for the component to run the new image.
func (r *k8sUpgrade) component(ctx context.Context, component, name string) error {
	n := r.nodes[name]

	configs := r.configs[name]
	if len(configs) == 0 {
		return errors.New("no step config left for this node")
	}

	config := configs[0]
	r.configs[name] = configs[1:]
	image := desiredImage(n.Desired, component)

	node, err := r.d.Dial(ctx, n.Address)
	if err != nil {
		return err
	}
	defer node.Close() //nolint:errcheck // the calls' errors matter

	cctx, cancel := context.WithTimeout(ctx, r.o.CallTimeout)
	applied, err := node.Apply(cctx, config, talos.ModeNoReboot, r.o.DryRun)

	cancel()

	if err != nil {
		return fmt.Errorf("apply the config with the new %s image: %w", component, err)
	}

	if r.o.DryRun {
		r.say(fmt.Sprintf("%s: %s → %s: the node accepts the config (%s)", name, component, image, describe(applied.Mode)))

		return nil
	}

	r.say(fmt.Sprintf("%s: %s → %s: config applied, waiting", name, component, image))

	switch component {
	case plan.K8sAPIServer, plan.K8sControllerManager, plan.K8sScheduler:
		err = r.waitStaticPod(ctx, node, component, image)
	case plan.K8sKubelet:
		kubeNode := n.KubeNode
		if kubeNode == "" {
			kubeNode = name
		}

		err = r.waitKubelet(ctx, kubeNode, plan.ImageVersion(image))
	default:
		// kube-proxy runs from the bootstrap manifests: the manifests step moves it.
		return nil
	}

	if err != nil {
		return err
	}

	r.say(fmt.Sprintf("%s: %s runs %s", name, component, image))

	return nil
}

// waitStaticPod waits until the node's static pod of component runs image and is ready.
func (r *k8sUpgrade) waitStaticPod(ctx context.Context, node talos.Node, component, image string) error {
	kn, ok := node.(talos.KubernetesNode)
	if !ok {
		return errors.New("this Talos client cannot read static pods")
	}

	last := "no static pod " + component + " yet"

	err := r.wait(ctx, component+" to run "+image, &last, func(ctx context.Context) (bool, error) {
		pods, err := kn.StaticPods(ctx)
		if err != nil {
			last = err.Error()

			return false, nil //nolint:nilerr // a node restarting a pod may not answer: look again
		}

		for _, p := range pods {
			if !strings.HasPrefix(p.ID, "kube-system/"+component+"-") {
				continue
			}

			switch {
			case !slices.Contains(p.Images, image):
				last = fmt.Sprintf("%s runs %s", p.ID, strings.Join(p.Images, ", "))
			case !p.Ready:
				last = p.ID + " is not ready"
			default:
				return true, nil
			}
		}

		return false, nil
	})
	if err != nil {
		return fmt.Errorf("wait for %s to run %s (%s): %w", component, image, last, err)
	}

	return nil
}

// waitKubelet waits until the Kubernetes Node reports the kubelet version and is Ready.
func (r *k8sUpgrade) waitKubelet(ctx context.Context, name, version string) error {
	last := ""

	err := r.wait(ctx, "the Node "+name+" to report kubelet "+version, &last, func(ctx context.Context) (bool, error) {
		v, ready, err := r.k.KubeletVersion(ctx, name)

		switch {
		case err != nil:
			last = err.Error()
		case v != version:
			last = "the Node reports kubelet " + v
		case !ready:
			last = "the Node is not Ready"
		default:
			return true, nil
		}

		return false, nil
	})
	if err != nil {
		return fmt.Errorf("wait for the Node %s to report kubelet %s (%s): %w", name, version, last, err)
	}

	return nil
}

// wait looks until done says so or WaitTimeout passes. Once in a while (Heartbeat) it says
// on the progress lines that it still waits for what, how long it has, and the last look
// (*last, which done keeps).
func (r *k8sUpgrade) wait(ctx context.Context, what string, last *string, done func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, r.o.WaitTimeout)
	defer cancel()

	start := r.o.now()
	said := start

	for {
		cctx, ccancel := context.WithTimeout(ctx, r.o.CallTimeout)
		ok, err := done(cctx)

		ccancel()

		switch {
		case err != nil:
			return err
		case ok:
			return nil
		}

		if now := r.o.now(); r.o.Progress != nil && now.Sub(said) >= orHeartbeat(r.o.Heartbeat) {
			said = now
			r.o.Progress(Line(stillWaiting(what, now.Sub(start), *last)))
		}

		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(r.o.Interval):
		}
	}
}
