//go:build kubernetes

package main

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	k8smanager "github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/kubernetes"
)

// kubernetesManager is the kubernetes service manager: with the
// `kubernetes` build tag (make build), client-go's.
func kubernetesManager() sdk.ServiceManager { return k8smanager.New() }
