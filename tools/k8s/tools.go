//go:build tools

// The upstream commands tools/ci/ensure-k8s.sh builds; importing them keeps go.mod and go.sum complete.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
