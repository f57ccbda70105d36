package main

// The Kubernetes mode (README.md, "Kubernetes mode"): the config documents a node needs to run its
// kubelet and control plane in the sandbox, the images imported before Bootstrap, and the wait for
// its Node to be Ready, read from the real kube-apiserver through the node's API forwarder.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"go.yaml.in/yaml/v3"

	"github.com/siderolabs/talos/pkg/machinery/api/common"
	machineapi "github.com/siderolabs/talos/pkg/machinery/api/machine"
	clientconfig "github.com/siderolabs/talos/pkg/machinery/client/config"
	"github.com/siderolabs/talos/pkg/machinery/config/configpatcher"
	"github.com/siderolabs/talos/pkg/machinery/config/encoder"
	"github.com/siderolabs/talos/pkg/machinery/resources/k8s"
)

// cmdK8sConfig patches a generated controlplane config for the Kubernetes mode: the harness's
// k8s-patch.yaml, and a hostname of its own (which the kubelet names its Node after).
func cmdK8sConfig(args []string) error {
	fs := flag.NewFlagSet("k8s-config", flag.ExitOnError)
	in := fs.String("in", "", "controlplane.yaml (rtclient gen)")
	patch := fs.String("patch", "", "the Kubernetes-mode patch (k8s-patch.yaml)")
	hostname := fs.String("hostname", "", "the node's hostname")
	out := fs.String("out", "", "output file")
	fs.Parse(args) //nolint:errcheck // the flag set exits on a bad flag (ExitOnError)

	if *in == "" || *patch == "" || *hostname == "" || *out == "" {
		return errors.New("k8s-config: -in, -patch, -hostname and -out are required")
	}

	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}

	patches, err := configpatcher.LoadPatches([]string{"@" + *patch,
		"apiVersion: v1alpha1\nkind: HostnameConfig\nauto: off\nhostname: " + *hostname + "\n"})
	if err != nil {
		return fmt.Errorf("load patches: %w", err)
	}

	res, err := configpatcher.Apply(configpatcher.WithBytes(data), patches)
	if err != nil {
		return fmt.Errorf("patch %s: %w", *in, err)
	}

	cfg, err := res.Config()
	if err != nil {
		return err
	}

	b, err := cfg.EncodeBytes(encoder.WithComments(encoder.CommentsDisabled))
	if err != nil {
		return err
	}

	return os.WriteFile(*out, b, 0o600)
}

// cmdK8s imports the Kubernetes images into a configured controlplane node, bootstraps it and
// waits for its Node to be Ready with the kubelet version the images carry. It prints the
// Node's name, which -node gives or the node's Nodename resource says.
func cmdK8s(args []string) error {
	fs := flag.NewFlagSet("k8s", flag.ExitOnError)
	addr := fs.String("addr", "", "forwarder address of a configured controlplane node")
	tc := fs.String("talosconfig", "", "talosconfig of the node")
	images := fs.String("images", "", "comma-separated directories of Kubernetes images (k8s-build.sh: $REALTALOS_WORK/images/k8s-VERSION)")
	pause := fs.String("pause", "", "the pause image tarball")
	etcd := fs.String("etcd", "", "the etcd image tarball")
	bootstrap := fs.Bool("bootstrap", true, "call Bootstrap after the imports (false: the code under test does)")
	node := fs.String("node", "", "the Node to wait for; empty: the one the node's Nodename resource names")
	version := fs.String("version", "", "the kubeletVersion the Node must report")
	kubeconfig := fs.String("kubeconfig", "", "write the cluster's admin kubeconfig here")
	server := fs.String("server", "", "the kube-apiserver URL in that kubeconfig (the node's API forwarder)")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the Node")
	fs.Parse(args) //nolint:errcheck // the flag set exits on a bad flag (ExitOnError)

	cfg, err := clientconfig.Open(*tc)
	if err != nil {
		return err
	}

	ctx := context.Background()
	t0 := time.Now()
	say := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "rtclient k8s: %5.1fs "+format+"\n", append([]any{time.Since(t0).Seconds()}, a...)...)
	}

	c, err := mtlsClient(ctx, cfg, *addr)
	if err != nil {
		return err
	}
	defer c.Close() //nolint:errcheck // a harness tool: a failed close changes nothing it reports

	// The kubelet and etcd are Talos services: their images go to "system"; the pods' to "k8s.io".
	type image struct {
		path string
		ns   common.ContainerdNamespace
	}

	var todo []image

	if *etcd != "" {
		todo = append(todo, image{*etcd, common.ContainerdNamespace_NS_SYSTEM})
	}

	if *pause != "" {
		todo = append(todo, image{*pause, common.ContainerdNamespace_NS_CRI})
	}

	for _, dir := range strings.Split(*images, ",") {
		if dir == "" {
			continue
		}

		// Talos' kubelet service, and an upgrade's pre-pull of the kubelet (talosctl's legacy
		// ImagePull, talops' ImageService.Pull), look in the CRI containerd's "system" namespace
		todo = append(todo, image{filepath.Join(dir, "kubelet.tar"), common.ContainerdNamespace_NS_SYSTEM})
		for _, n := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			todo = append(todo, image{filepath.Join(dir, n+".tar"), common.ContainerdNamespace_NS_CRI})
		}
	}

	for _, im := range todo {
		var name string

		// the CRI containerd starts right after the config is applied; retry until it is up
		err := poll(90*time.Second, func() error {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()

			var err error
			name, err = importImageNS(cctx, c, im.ns, im.path)

			return err
		})
		if err != nil {
			return fmt.Errorf("import %s: %w", im.path, err)
		}

		say("imported %s (%s)", name, im.ns)
	}

	if *bootstrap {
		if err := poll(60*time.Second, func() error {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()

			return c.Bootstrap(cctx, &machineapi.BootstrapRequest{})
		}); err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}

		say("bootstrap accepted")
	}

	if *kubeconfig == "" {
		return nil
	}

	// the kubeconfig exists once the control plane's secrets are rendered, after etcd is up
	var kc []byte

	if err := poll(*timeout, func() error {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()

		var err error
		kc, err = c.Kubeconfig(cctx)

		return err
	}); err != nil {
		return fmt.Errorf("read the kubeconfig: %w", err)
	}

	if *server != "" {
		if kc, err = withServer(kc, *server); err != nil {
			return err
		}
	}

	if err := os.WriteFile(*kubeconfig, kc, 0o600); err != nil {
		return err
	}

	say("kubeconfig written to %s", *kubeconfig)

	if *node == "" {
		if err := poll(*timeout, func() error {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()

			r, err := safe.StateGetByID[*k8s.Nodename](cctx, c.COSI, k8s.NodenameID)
			if err != nil {
				return err
			}

			*node = r.TypedSpec().Nodename

			return nil
		}); err != nil {
			return fmt.Errorf("read the node's Nodename: %w", err)
		}

		say("the node's Nodename is %s", *node)
	}

	kube, err := newKubeREST(kc)
	if err != nil {
		return err
	}

	var last string

	if err := poll(*timeout, func() error {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()

		st, err := kube.node(cctx, *node)
		if err != nil {
			if last != err.Error() {
				last = err.Error()
				say("waiting for Node %s: %v", *node, err)
			}

			time.Sleep(2 * time.Second)

			return err
		}

		if !st.ready || (*version != "" && st.kubeletVersion != *version) {
			err = fmt.Errorf("Node %s: ready %v, kubelet %s", *node, st.ready, st.kubeletVersion)
			if last != err.Error() {
				last = err.Error()
				say("%v", err)
			}

			time.Sleep(2 * time.Second)

			return err
		}

		return nil
	}); err != nil {
		return err
	}

	say("Node %s Ready", *node)
	fmt.Println(*node)

	return nil
}

// withServer points every cluster of a kubeconfig at server.
func withServer(kc []byte, server string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(kc, &doc); err != nil {
		return nil, fmt.Errorf("parse the kubeconfig: %w", err)
	}

	clusters, _ := doc["clusters"].([]any)
	for _, cl := range clusters {
		if m, ok := cl.(map[string]any); ok {
			if c, ok := m["cluster"].(map[string]any); ok {
				c["server"] = server
			}
		}
	}

	return yaml.Marshal(doc)
}

// kubeREST reads the Kubernetes API with the admin kubeconfig's certificate, with the standard
// library only (the harness's tools do not depend on client-go).
type kubeREST struct {
	server string
	http   *http.Client
}

func newKubeREST(kc []byte) (*kubeREST, error) {
	var doc struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
				CA     string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct {
				Cert string `yaml:"client-certificate-data"`
				Key  string `yaml:"client-key-data"`
			} `yaml:"user"`
		} `yaml:"users"`
	}

	if err := yaml.Unmarshal(kc, &doc); err != nil {
		return nil, fmt.Errorf("parse the kubeconfig: %w", err)
	}

	if len(doc.Clusters) == 0 || len(doc.Users) == 0 {
		return nil, errors.New("the kubeconfig names no cluster or no user")
	}

	dec := func(s string) []byte { b, _ := base64.StdEncoding.DecodeString(s); return b } //nolint:errcheck // a bad field decodes empty and the certificate pool below refuses it

	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(dec(doc.Clusters[0].Cluster.CA)) {
		return nil, errors.New("the kubeconfig has no usable CA")
	}

	cert, err := tls.X509KeyPair(dec(doc.Users[0].User.Cert), dec(doc.Users[0].User.Key))
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig's client certificate: %w", err)
	}

	return &kubeREST{server: strings.TrimSuffix(doc.Clusters[0].Cluster.Server, "/"), http: &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}},
	}}, nil
}

func (k *kubeREST) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.server+path, nil)
	if err != nil {
		return err
	}

	resp, err := k.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close() //nolint:errcheck // a harness tool: a failed close changes nothing it reports

	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}

	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}

	return json.Unmarshal(body, into)
}

type nodeState struct {
	ready          bool
	kubeletVersion string
}

func (k *kubeREST) node(ctx context.Context, name string) (nodeState, error) {
	var n struct {
		Status struct {
			NodeInfo struct {
				KubeletVersion string `json:"kubeletVersion"`
			} `json:"nodeInfo"`
			Conditions []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
			} `json:"conditions"`
		} `json:"status"`
	}

	if err := k.get(ctx, "/api/v1/nodes/"+name, &n); err != nil {
		return nodeState{}, err
	}

	st := nodeState{kubeletVersion: n.Status.NodeInfo.KubeletVersion}

	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			st.ready = c.Status == "True"
		}
	}

	return st, nil
}
