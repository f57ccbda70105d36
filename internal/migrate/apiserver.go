package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/siderolabs/talos/pkg/machinery/config/types/k8s"
	"go.yaml.in/yaml/v4"
)

// apiServer: cluster.apiServer → KubeAPIServerConfig, its audit policy → KubeAuditPolicyConfig,
// its authorizers → KubeAuthorizerConfig, its OIDC flags → KubeAuthenticationConfig. All or
// nothing: any v1alpha1 apiServer left conflicts with the new layout's KubeAPIServerConfig.
func (f *file) apiServer() {
	_, v := at(f.body(), "cluster.apiServer")
	if v == nil {
		return
	}

	args, flags, authn, ok := f.movableAPIServer(v)
	if !ok {
		return
	}

	k, v, comment := f.take("cluster.apiServer")

	// The new contract's KubeAPIServerConfig is in every control plane's config already:
	// the patch writes one only for the fields it sets.
	var doc *yaml.Node

	server := func() *yaml.Node {
		if doc == nil {
			doc = f.doc(k8s.KubeAPIServerConfig, "")
			f.moved(k.Line, "cluster.apiServer", k8s.KubeAPIServerConfig, doc, comment)
			comment = ""
		}

		return doc
	}

	for i := 0; i+1 < len(v.Content); i += 2 {
		key, val := v.Content[i], v.Content[i+1]

		switch key.Value {
		case "auditPolicy":
			audit := f.doc(k8s.KubeAuditPolicyConfig, "")
			set(audit, "configuration", val).HeadComment = key.HeadComment
			f.moved(key.Line, "cluster.apiServer.auditPolicy", k8s.KubeAuditPolicyConfig, audit, comment)
			comment = ""
		case "authorizationConfig":
			f.authorizers(key, val)
		case "admissionControl":
			f.admissionControl(key, val)
		case "certSANs":
			set(server(), "certExtraSANs", val).HeadComment = key.HeadComment
		case "extraArgs":
			if kept := withoutAuthnFlags(val); len(kept.Content) > 0 {
				set(server(), "extraArgs", kept).HeadComment = key.HeadComment
			}
		default:
			set(server(), key.Value, val).HeadComment = key.HeadComment
		}
	}

	if slices.ContainsFunc(slices.Collect(maps.Keys(flags)), isAuthnFlag) {
		authDoc := f.doc(k8s.KubeAuthenticationConfig, "")

		var node yaml.Node
		if err := node.Encode(authn); err == nil {
			set(authDoc, "configuration", &node).HeadComment = "From the apiServer's flags, as kube-apiserver itself converts them: anonymous requests on\nevery path, and a username without a prefix flag prefixed with the issuer URL and #\n(unless its claim is email)."
		}

		f.moved(args.Line, "cluster.apiServer.extraArgs.oidc-*", k8s.KubeAuthenticationConfig, authDoc, comment)
	}
}

// movableAPIServer says whether the apiServer section v can move whole, recording why not
// when it cannot; when it can, it returns the section's extraArgs, as a node and as flags,
// and the authentication configuration those flags amount to.
func (f *file) movableAPIServer(v *yaml.Node) (args *yaml.Node, flags map[string]string, authn map[string]any, ok bool) {
	if extra := unknownKeys(v, "image", "extraArgs", "env", "resources", "certSANs", "auditPolicy", "authorizationConfig", "admissionControl"); len(extra) > 0 {
		f.left("cluster.apiServer", strings.Join(extra, ", ")+" has no place this migration writes (extraVolumes move by hand): the whole apiServer section stays")

		return nil, nil, nil, false
	}

	if _, ac := get(v, "admissionControl"); ac != nil && !movableAdmission(ac) {
		f.left("cluster.apiServer.admissionControl", "neither a list of plugins with a name and a configuration nor $patch: delete: the whole apiServer section stays")

		return nil, nil, nil, false
	}

	_, args = get(v, "extraArgs")

	flags, ok = scalarMap(args)
	if args != nil && !ok {
		f.left("cluster.apiServer.extraArgs", "an argument with a list value: move it by hand")

		return nil, nil, nil, false
	}

	authn, err := AuthenticationFromFlags(flags)
	if err != nil {
		f.left("cluster.apiServer.extraArgs", err.Error())

		return nil, nil, nil, false
	}

	for name := range flags {
		if strings.HasPrefix(name, "authorization-") {
			f.left("cluster.apiServer.extraArgs."+name, "authorization flags become KubeAuthorizerConfig documents: move it by hand")

			return nil, nil, nil, false
		}
	}

	return args, flags, authn, true
}

// authorizers writes one KubeAuthorizerConfig per v1alpha1 authorizer; the Node and RBAC
// authorizers v1alpha1 put first by itself are documents of the new contract already.
func (f *file) authorizers(key, list *yaml.Node) {
	for _, item := range list.Content {
		doc := f.doc(k8s.KubeAuthorizerConfig, nameOf(item))

		for _, field := range []string{"type", "webhook"} {
			if _, val := get(item, field); val != nil {
				set(doc, field, val)
			}
		}

		f.moved(item.Line, "cluster.apiServer.authorizationConfig", k8s.KubeAuthorizerConfig, doc, key.HeadComment)
	}
}

func nameOf(m *yaml.Node) string {
	if _, n := get(m, "name"); n != nil {
		return n.Value
	}

	return ""
}

// withoutAuthnFlags copies an extraArgs mapping without the flags KubeAuthenticationConfig owns.
func withoutAuthnFlags(args *yaml.Node) *yaml.Node {
	out := mapping()

	for i := 0; i+1 < len(args.Content); i += 2 {
		if !isAuthnFlag(args.Content[i].Value) {
			out.Content = append(out.Content, args.Content[i], args.Content[i+1])
		}
	}

	return out
}

func isAuthnFlag(name string) bool {
	return strings.HasPrefix(name, "oidc-") || name == "anonymous-auth" || name == "authentication-config"
}

// AuthenticationFromFlags is the structured authentication configuration equal to what
// kube-apiserver's legacy flags (anonymous-auth and oidc-*) configure, none set included:
// anonymous requests on every path unless anonymous-auth is false, and one JWT issuer for
// the oidc-* flags, as kube-apiserver itself converts them (the username claim defaults to
// sub, and a username without a prefix flag is prefixed with the issuer URL and # unless
// the claim is email).
func AuthenticationFromFlags(flags map[string]string) (map[string]any, error) {
	anonymous, err := anonymousFromFlags(flags)
	if err != nil {
		return nil, err
	}

	cfg := map[string]any{"anonymous": anonymous, "jwt": []any{}}

	issuer, client := flags["oidc-issuer-url"], flags["oidc-client-id"]
	if issuer == "" && client == "" {
		return cfg, nil
	}

	if issuer == "" || client == "" {
		return nil, fmt.Errorf("oidc-issuer-url and oidc-client-id go together: kube-apiserver ignores one without the other")
	}

	cfg["jwt"] = []any{jwtFromFlags(flags, issuer, client)}

	return cfg, nil
}

// anonymousFromFlags is the anonymous part of the authentication configuration; it refuses
// the authentication flags this migration has no equivalent for, the first by name.
func anonymousFromFlags(flags map[string]string) (map[string]any, error) {
	var names []string

	for name := range flags {
		if isAuthnFlag(name) {
			names = append(names, name)
		}
	}

	slices.Sort(names)

	anonymous := map[string]any{"enabled": true}

	for _, name := range names {
		switch name {
		case "oidc-issuer-url", "oidc-client-id", "oidc-username-claim", "oidc-username-prefix", "oidc-groups-claim", "oidc-groups-prefix", "oidc-required-claim":
		case "anonymous-auth":
			if flags[name] == "false" {
				anonymous = map[string]any{"enabled": false}
			}
		default:
			return nil, fmt.Errorf("%s has no equivalent this migration writes in KubeAuthenticationConfig: move it by hand (oidc-signing-algs cannot be set at all with the new contract)", name)
		}
	}

	return anonymous, nil
}

// jwtFromFlags is the JWT issuer the oidc-* flags configure for issuer and client, with
// kube-apiserver's own defaults for the username claim and its prefix.
func jwtFromFlags(flags map[string]string, issuer, client string) map[string]any {
	claim := flags["oidc-username-claim"]
	if claim == "" {
		claim = "sub"
	}

	prefix, set := flags["oidc-username-prefix"]

	switch {
	case prefix == "-":
		prefix = ""
	case (!set || prefix == "") && claim != "email":
		prefix = issuer + "#"
	}

	jwt := map[string]any{
		"issuer": map[string]any{"url": issuer, "audiences": []any{client}},
		"claimMappings": map[string]any{
			"username": map[string]any{"claim": claim, "prefix": prefix},
		},
	}

	if groups := flags["oidc-groups-claim"]; groups != "" {
		jwt["claimMappings"].(map[string]any)["groups"] = map[string]any{"claim": groups, "prefix": flags["oidc-groups-prefix"]}
	}

	if required := flags["oidc-required-claim"]; required != "" {
		var rules []any

		for _, pair := range strings.Split(required, ",") {
			k, v, _ := strings.Cut(pair, "=")
			rules = append(rules, map[string]any{"claim": k, "requiredValue": v})
		}

		jwt["claimValidationRules"] = rules
	}

	return jwt
}

// admissionControl: cluster.apiServer.admissionControl → one KubeAdmissionControlConfig per
// plugin (named after it, its configuration as it is, merged into the generated one of the
// same name as v1alpha1 merged the list by name); `$patch: delete` of the whole list →
// the generated PodSecurity document deleted.
func (f *file) admissionControl(key, list *yaml.Node) {
	if list.Kind == yaml.MappingNode {
		doc := f.doc(k8s.KubeAdmissionControlConfig, podSecurity)
		set(doc, "$patch", str("delete"))
		f.moved(key.Line, "cluster.apiServer.admissionControl", k8s.KubeAdmissionControlConfig, doc, key.HeadComment)

		return
	}

	for _, item := range list.Content {
		doc := f.doc(k8s.KubeAdmissionControlConfig, nameOf(item))

		if _, cfg := get(item, "configuration"); cfg != nil {
			set(doc, "configuration", cfg)
		}

		if _, op := get(item, "$patch"); op != nil {
			set(doc, "$patch", op)
		}

		f.moved(item.Line, "cluster.apiServer.admissionControl", k8s.KubeAdmissionControlConfig, doc, key.HeadComment)
	}
}

// podSecurity is the admission plugin the generator configures in its own document.
const podSecurity = "PodSecurity"

// movableAdmission says whether an admissionControl value moves: a list of named plugins
// (configuration, or $patch: delete), or $patch: delete of the whole list.
func movableAdmission(v *yaml.Node) bool {
	if v.Kind == yaml.MappingNode {
		_, op := get(v, "$patch")

		return len(v.Content) == 2 && op != nil && op.Value == "delete"
	}

	if v.Kind != yaml.SequenceNode {
		return false
	}

	for _, item := range v.Content {
		if _, name := get(item, "name"); name == nil || name.Value == "" || len(unknownKeys(item, "name", "configuration", "$patch")) > 0 {
			return false
		}
	}

	return true
}
