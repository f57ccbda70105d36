// Package secrets finds the cluster's secrets bundle: a SOPS/age-encrypted or plain
// file, the TALOS_SECRETS variable, or a throwaway bundle when no real one is available.
package secrets

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-multierror"
	"github.com/siderolabs/crypto/x509"
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets/sops"
	"github.com/talops/talops/internal/yamlpos"
)

// EnvBundle is the variable that may hold the bundle YAML itself.
const EnvBundle = "TALOS_SECRETS"

// Bundle is a secrets bundle with where it came from.
type Bundle struct {
	*gensecrets.Bundle

	// Source says where the bundle came from, for messages.
	Source string
	// Throwaway is true when no real bundle was available.
	Throwaway bool
	// Why explains a throwaway bundle.
	Why string
}

// Values returns every secret string of the bundle as it appears in a machine config,
// for masking: keys, tokens and encryption secrets (certificates are public).
func (b *Bundle) Values() []string {
	var out []string

	add := func(s string) {
		if len(s) >= 6 {
			out = append(out, s)
		}
	}
	addKey := func(key []byte) {
		if len(key) == 0 {
			return
		}

		add(base64.StdEncoding.EncodeToString(key))
		add(string(key))
	}

	if c := b.Cluster; c != nil {
		add(c.Secret)
	}

	if s := b.Secrets; s != nil {
		add(s.BootstrapToken)
		add(s.AESCBCEncryptionSecret)
		add(s.SecretboxEncryptionSecret)
	}

	if t := b.TrustdInfo; t != nil {
		add(t.Token)
	}

	if c := b.Certs; c != nil {
		if c.Etcd != nil {
			addKey(c.Etcd.Key)
		}

		if c.K8s != nil {
			addKey(c.K8s.Key)
		}

		if c.K8sAggregator != nil {
			addKey(c.K8sAggregator.Key)
		}

		if c.K8sServiceAccount != nil {
			addKey(c.K8sServiceAccount.Key)
		}

		if c.OS != nil {
			addKey(c.OS.Key)
		}
	}

	sort.Strings(out)

	return out
}

// Public returns the public strings the bundle puts in a machine config: the cluster ID
// and the CA certificates (encoded as in a config, and as PEM). They are no secret, but they
// differ from bundle to bundle: a plan shows them as masked too, so that it does not depend
// on which bundle rendered it (a pull request's throwaway one, or the real one at merge).
func (b *Bundle) Public() []string {
	if b == nil || b.Bundle == nil {
		return nil
	}

	var out []string

	add := func(s string) {
		if len(s) >= 6 {
			out = append(out, s)
		}
	}

	if c := b.Cluster; c != nil {
		add(c.ID)
	}

	if c := b.Certs; c != nil {
		for _, pair := range []*x509.PEMEncodedCertificateAndKey{c.Etcd, c.K8s, c.K8sAggregator, c.OS} {
			if pair != nil && len(pair.Crt) > 0 {
				add(base64.StdEncoding.EncodeToString(pair.Crt))
				add(string(pair.Crt))
			}
		}
	}

	sort.Strings(out)

	return out
}

// Loader finds bundles. Its fields are the doors to the outside.
type Loader struct {
	// Getenv reads the environment (TALOS_SECRETS, SOPS_AGE_KEY, SOPS_AGE_KEY_FILE).
	Getenv func(string) string
	// ReadFile reads age key files named by the environment (they live outside the repository).
	ReadFile func(string) ([]byte, error)
	// Now is the clock for generated bundles.
	Now func() time.Time

	mu        sync.Mutex
	throwaway map[string]*Bundle
}

// ErrDecrypt wraps every failure to decrypt a secrets file.
var ErrDecrypt = errors.New("cannot decrypt secrets")

// Load returns the bundle for the cluster: TALOS_SECRETS first, then the file
// talops.yaml names, else a throwaway bundle (with Why saying so).
func (l *Loader) Load(c *cluster.Cluster) (*Bundle, error) {
	contract, err := config.ParseContractFromVersion(c.ConfigVersion())
	if err != nil {
		return nil, c.ConfigVersionError(err)
	}

	if env := l.Getenv(EnvBundle); env != "" {
		b, err := parse([]byte(env), contract)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvBundle, err)
		}

		return &Bundle{Bundle: b, Source: EnvBundle}, nil
	}

	if c.Spec.Secrets == "" {
		return l.Throwaway(contract, "talops.yaml names no secrets file")
	}

	data, _ := c.File(c.Spec.Secrets)
	file := c.Path(c.Spec.Secrets)

	if sops.IsEncrypted(data) {
		ids, err := sops.IdentitiesFromEnv(l.Getenv, l.ReadFile)
		if err != nil {
			return nil, fmt.Errorf("%s: age key: %w", file, err)
		}

		if len(ids) == 0 {
			return l.Throwaway(contract, file+" is SOPS-encrypted and no age key is set (SOPS_AGE_KEY or SOPS_AGE_KEY_FILE)")
		}

		plain, err := sops.Decrypt(data, ids)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %w", file, ErrDecrypt, err)
		}

		data = plain
	}

	b, err := parse(data, contract)
	if err != nil {
		return nil, placed(file, err)
	}

	return &Bundle{Bundle: b, Source: file}, nil
}

// Throwaway returns a bundle generated once per Loader and Talos contract.
func (l *Loader) Throwaway(contract *config.VersionContract, why string) (*Bundle, error) {
	l.mu.Lock()
	defer l.mu.Unlock()

	key := contract.String()
	if b, ok := l.throwaway[key]; ok {
		return &Bundle{Bundle: b.Bundle, Source: "throwaway", Throwaway: true, Why: why}, nil
	}

	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(l.Now()), contract)
	if err != nil {
		return nil, fmt.Errorf("generate throwaway secrets: %w", err)
	}

	if l.throwaway == nil {
		l.throwaway = map[string]*Bundle{}
	}

	l.throwaway[key] = &Bundle{Bundle: b}

	return &Bundle{Bundle: b, Source: "throwaway", Throwaway: true, Why: why}, nil
}

// parse reads bundle YAML; its errors name fields, never values.
func parse(data []byte, contract *config.VersionContract) (*gensecrets.Bundle, error) {
	b := &gensecrets.Bundle{}

	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, newBundleError(nil, err, "not a YAML secrets bundle (talosctl gen secrets format)")
	}

	if err := yamlpos.CheckNode(&node); err != nil {
		return nil, newBundleError(nil, err, "YAML: "+yamlpos.Problems(err)[0].Message)
	}

	if err := node.Decode(b); err != nil {
		ix, _ := yamlpos.Parse(data)

		return nil, newBundleError(ix, err, "not a secrets bundle: a field has the wrong type (talosctl gen secrets format)")
	}

	b.Clock = gensecrets.NewFixedClock(time.Time{})

	if err := b.Validate(contract); err != nil {
		return nil, fmt.Errorf("invalid secrets bundle: %s", oneLine(err))
	}

	return b, nil
}

// bundleError is a bundle that does not parse, placed at a line and field. The YAML
// library's own message is dropped: it may quote a value.
type bundleError struct {
	line  int
	field string
	msg   string
}

func newBundleError(ix *yamlpos.Index, err error, msg string) *bundleError {
	e := &bundleError{msg: msg}

	if probs := yamlpos.Problems(err); len(probs) > 0 {
		e.line = probs[0].Line

		if ix != nil {
			if d := ix.DocAt(e.line); d >= 0 {
				e.field = ix.Docs[d].PathAt(probs[0].Line, probs[0].Column)
			}
		}
	}

	return e
}

func (e *bundleError) Error() string {
	s := e.msg
	if e.field != "" {
		s = e.field + ": " + s
	}

	if e.line > 0 {
		s = fmt.Sprintf("line %d: %s", e.line, s)
	}

	return s
}

// placed names the file of a bundle error the way input errors are named.
func placed(file string, err error) error {
	var be *bundleError
	if errors.As(err, &be) {
		return &cluster.InputError{File: file, Line: be.line, Field: be.field, Msg: be.msg}
	}

	return fmt.Errorf("%s: %w", file, err)
}

// oneLine joins machinery's list of problems ("2 errors occurred:\n\t* …") into one line.
func oneLine(err error) string {
	var me *multierror.Error
	if !errors.As(err, &me) {
		return err.Error()
	}

	msgs := make([]string, 0, len(me.Errors))
	for _, e := range me.Errors {
		msgs = append(msgs, e.Error())
	}

	return strings.Join(msgs, "; ")
}
