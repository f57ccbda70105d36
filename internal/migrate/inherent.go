package migrate

import (
	"path/filepath"
	"slices"

	"github.com/siderolabs/talos/pkg/machinery/config/config"
	"github.com/siderolabs/talos/pkg/machinery/constants"
)

// inherentEffect is something a document of the new layout does by itself, for every node
// that has it, and that none of its fields can keep as the v1alpha1 layout had it
// (machinery v1.14.1, pkg/machinery/config/types/k8s): what the move brings with it, said
// in the plan, never hidden.
type inherentEffect struct {
	// path is the accessor that answers it.
	path string
	// holds says whether the difference at path is this effect and nothing else.
	holds func(before, after config.Config) bool
	says  string
}

var inherent = []inherentEffect{
	{
		path:  "K8sAPIServerConfig.ExtraVolumes",
		holds: caRootsMounted,
		says:  "kube-apiserver mounts the host's CA roots (" + caRootsDir + "), as KubeAPIServerConfig always has it",
	},
	{
		path:  "K8sProxyConfig.UseConfigFile",
		holds: proxyConfigFile,
		says:  "kube-proxy reads its settings from a config file instead of flags, as KubeProxyConfig always has it",
	},
}

// caRootsDir is where the host's trusted CA bundle lives; KubeAPIServerConfig mounts it.
var caRootsDir = filepath.Dir(constants.DefaultTrustedCAFile)

// caRootsMounted: the API server mounts what it did, and the CA roots besides.
func caRootsMounted(before, after config.Config) bool {
	b, a := before.K8sAPIServerConfig(), after.K8sAPIServerConfig()
	if b == nil || a == nil || b.UseAuthenticationConfig() || !a.UseAuthenticationConfig() {
		return false
	}

	type mount struct {
		name, host, path string
		ro               bool
	}

	mounts := func(vs []config.VolumeMount) []mount {
		out := make([]mount, 0, len(vs))
		for _, v := range vs {
			out = append(out, mount{v.Name(), v.HostPath(), v.MountPath(), v.ReadOnly()})
		}

		return out
	}

	want := append(mounts(b.ExtraVolumes()), mount{"ca-roots", caRootsDir, caRootsDir, true})
	got := mounts(a.ExtraVolumes())

	sortMounts := func(ms []mount) {
		slices.SortFunc(ms, func(x, y mount) int {
			switch {
			case x.name < y.name:
				return -1
			case x.name > y.name:
				return 1
			default:
				return 0
			}
		})
	}

	sortMounts(want)
	sortMounts(got)

	return slices.Equal(want, got)
}

// proxyConfigFile: kube-proxy was given flags and now gets a file.
func proxyConfigFile(before, after config.Config) bool {
	b, a := before.K8sProxyConfig(), after.K8sProxyConfig()

	return b != nil && a != nil && !b.UseConfigFile() && a.UseConfigFile()
}
