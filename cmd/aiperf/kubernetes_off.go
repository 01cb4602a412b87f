//go:build !kubernetes

package main

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/kubernetes/unavailable"
)

// kubernetesManager is the kubernetes service manager: without the
// `kubernetes` build tag, one that says how to get a binary with it
// (client-go adds about 48 MB; docs/KUBERNETES.md).
func kubernetesManager() sdk.ServiceManager { return unavailable.New() }
