//go:build tools

// The upstream command tools/ci/ensure-multus.sh builds; importing it keeps go.mod and go.sum complete.
package tools

import _ "gopkg.in/k8snetworkplumbingwg/multus-cni.v4/cmd/multus"
