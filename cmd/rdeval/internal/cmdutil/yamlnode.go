package cmdutil

import "go.yaml.in/yaml/v3"

// NodeKey returns the value node of key in the YAML mapping n, or nil when
// n is not a mapping or has no such key (claims files and multiverse specs
// use it to point errors at a key's line).
func NodeKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
