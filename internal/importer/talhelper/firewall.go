package talhelper

import (
	"maps"
	"reflect"

	"go.yaml.in/yaml/v4"
)

// firewallDocs are the documents talhelper writes for a node's ingressFirewall: the
// NetworkDefaultActionConfig (accept when no defaultAction is given, the zero value
// talhelper encodes), then one NetworkRuleConfig per rule, each with the keys talhelper's
// types know.
func (im *mapping) firewallDocs(n *yaml.Node, name string, field func(string) string) []any {
	fw := get(n, "ingressFirewall")
	if fw == nil {
		return nil
	}

	val, ok := im.typed(fw, name, field("ingressFirewall"), reflect.TypeFor[firewallEntry]())
	if !ok {
		return nil
	}

	m, _ := val.(map[string]any)

	action, _ := m["defaultAction"].(string)
	if action == "" {
		action = "accept"
	}

	docs := []any{map[string]any{"apiVersion": "v1alpha1", "kind": "NetworkDefaultActionConfig", "ingress": action}}

	rules, _ := m["rules"].([]any)
	for _, r := range rules {
		rule := map[string]any{"apiVersion": "v1alpha1", "kind": "NetworkRuleConfig"}

		if rm, isMap := r.(map[string]any); isMap {
			maps.Copy(rule, rm)
		}

		docs = append(docs, rule)
	}

	return docs
}
