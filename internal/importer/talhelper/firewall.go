package talhelper

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// firewallDocs are the documents talhelper writes for a node's ingressFirewall: the
// NetworkDefaultActionConfig (accept when no defaultAction is given, the zero value
// talhelper encodes), then one NetworkRuleConfig per rule.
func (im *importer) firewallDocs(n *yaml.Node, name string, field func(string) string) []any {
	fw := get(n, "ingressFirewall")
	if fw == nil {
		return nil
	}

	if k := unknownKey(fw, []string{"defaultAction", "rules"}); k != "" {
		im.unsupported(lineOf(fw, k), name, field("ingressFirewall."+k), "unknown to talops; the firewall is not imported")

		return nil
	}

	action := scalar(get(fw, "defaultAction"))
	if action == "" {
		action = "accept"
	}

	docs := []any{map[string]any{"apiVersion": "v1alpha1", "kind": "NetworkDefaultActionConfig", "ingress": action}}

	for i, r := range items(get(fw, "rules")) {
		rule := map[string]any{"apiVersion": "v1alpha1", "kind": "NetworkRuleConfig"}

		for _, p := range pairs(r) {
			v, err := plain(p.value)
			if err != nil || (p.key != "name" && p.key != "portSelector" && p.key != "ingress") {
				im.unsupported(p.line, name, field(fmt.Sprintf("ingressFirewall.rules[%d].%s", i, p.key)), "unknown to talops; the firewall is not imported")

				return nil
			}

			rule[p.key] = v
		}

		docs = append(docs, rule)
	}

	return docs
}
