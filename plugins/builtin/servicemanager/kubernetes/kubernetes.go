// Package kubernetes is the kubernetes service_manager plugin: the shards
// of a sharded run as the pods of one batch/v1 Indexed Job, with a
// headless Service through which shard 0 serves the start barrier. Each
// shard emits its result as framed lines in its log and a status with the
// result's checksum in its termination message; the plugin reads both
// through the API, checks one against the other, and hands the payloads
// to the CLI, which merges them. No operator, no broker: the user needs
// only the built-in edit role in the namespace (jobs, services, secrets,
// pods, pods/log).
package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/kubernetes/unavailable"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Name is the plugin's registered name.
const Name = "kubernetes"

// Settings are the plugin's settings: --image, --namespace,
// --node-selector, --resources and --keep-job reach it as image,
// namespace, node_selector, resources and keep_job; kubeconfig and context
// come from --plugin-config service_manager.kubernetes.<key>=<value>.
// They are declared once, in the package a build without client-go uses,
// so both builds accept the same configuration.
type Settings = unavailable.Settings

// LogSource opens the log of a pod's container. The default reads it
// through the API (pods/log); tests against an API server without a
// kubelet serve it themselves.
type LogSource func(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)

// Manager runs the shards as a Kubernetes Indexed Job.
type Manager struct {
	cfg Settings

	// Seams for tests: the client (nil: from the kubeconfig), the
	// namespace when no setting names one, the log source (nil: the API),
	// the poll interval and the environment.
	client    k8s.Interface
	defaultNS string
	logs      LogSource
	poll      time.Duration
	getenv    func(string) string
	// pullGrace is how long a pod may wait for its image before the run
	// is given up (a pod that never starts holds the others at the barrier).
	pullGrace time.Duration
}

var (
	_ sdk.ServiceManager = (*Manager)(nil)
	_ sdk.Configurable   = (*Manager)(nil)
	_ sdk.Validator      = (*Manager)(nil)
)

// New returns the manager.
func New() *Manager {
	return &Manager{poll: 2 * time.Second, getenv: os.Getenv, pullGrace: 5 * time.Minute}
}

// PluginConfig is the settings struct the core decodes into.
func (m *Manager) PluginConfig() any { return &m.cfg }

// Validate checks the settings before anything is created.
func (m *Manager) Validate() error {
	if strings.TrimSpace(m.cfg.Image) == "" {
		return errors.New("setting image (--image) is required: the container image with aiperf the shard pods run (make image builds one)")
	}
	if _, err := parseResources(m.cfg.Resources); err != nil {
		return err
	}
	for k, v := range m.cfg.NodeSelector {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("setting node_selector (--node-selector %s=%s): key: %s", k, v, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("setting node_selector (--node-selector %s=%s): value: %s", k, v, strings.Join(errs, "; "))
		}
	}
	if ns := m.cfg.Namespace; ns != "" {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("setting namespace (--namespace %s): %s", ns, strings.Join(errs, "; "))
		}
	}
	return nil
}

// connect builds the client from the kubeconfig (KUBECONFIG, ~/.kube/config
// or the kubeconfig setting; in a pod, its service account) and resolves
// the namespace: the setting, else the context's, else "default".
func (m *Manager) connect() (k8s.Interface, string, error) {
	if m.client != nil {
		ns := m.cfg.Namespace
		if ns == "" {
			ns = m.defaultNS
		}
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
		return m.client, ns, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if m.cfg.Kubeconfig != "" {
		rules.ExplicitPath = m.cfg.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: m.cfg.Context})
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes service manager: load the kubeconfig (KUBECONFIG, ~/.kube/config or --plugin-config service_manager.kubernetes.kubeconfig=PATH): %w", err)
	}
	rc.UserAgent = "aiperf"
	client, err := k8s.NewForConfig(rc)
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes service manager: client for %s: %w", rc.Host, err)
	}
	ns := m.cfg.Namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", fmt.Errorf("kubernetes service manager: the kubeconfig context's namespace: %w", err)
		}
	}
	return client, ns, nil
}

// RunShards creates the Job, its headless Service and Secret, waits for
// the Job to end while reporting each shard's progress, reads every
// shard's result and cleans up (unless keep_job). A Job its pod failure
// policy failed (a plan mismatch or a barrier timeout) returns an error
// naming the shard; a Job with some failed indexes returns their failed
// reports and no error (the CLI marks the result PARTIAL).
func (m *Manager) RunShards(ctx context.Context, job sdk.ShardJob) ([]sdk.ShardReport, error) {
	if job.Shards < 1 {
		return nil, fmt.Errorf("kubernetes service manager: %d shards", job.Shards)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("kubernetes service manager: %w", err)
	}
	client, ns, err := m.connect()
	if err != nil {
		return nil, err
	}
	getenv := m.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	name := "aiperf-" + utilrand.String(5)
	p, err := buildPlan(m.cfg, ns, name, job, getenv)
	if err != nil {
		return nil, fmt.Errorf("kubernetes service manager: %w", err)
	}
	progress := job.Progress
	if progress == nil {
		progress = io.Discard
	}
	r := &run{m: m, client: client, plan: p, job: job, out: progress, logs: m.logs}
	if r.logs == nil {
		r.logs = apiLogs(client)
	}
	if err := r.create(ctx); err != nil {
		r.cleanup()
		return nil, err
	}
	reports, err := r.wait(ctx)
	r.cleanup()
	if ctx.Err() != nil {
		return reports, fmt.Errorf("kubernetes service manager: interrupted: %w", ctx.Err())
	}
	return reports, err
}

// run is one RunShards call.
type run struct {
	m      *Manager
	client k8s.Interface
	plan   *plan
	job    sdk.ShardJob
	logs   LogSource
	// created: the Job exists (cleanup has something to do).
	created bool

	outMu sync.Mutex
	out   io.Writer
}

func (r *run) say(format string, a ...any) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	fmt.Fprintf(r.out, format+"\n", a...)
}

// create makes the Job (suspended, so no pod starts before what it needs
// exists), the Service and Secret it owns, then resumes the Job.
func (r *run) create(ctx context.Context) error {
	p := r.plan
	jobs := r.client.BatchV1().Jobs(p.namespace)
	created, err := jobs.Create(ctx, p.job, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("kubernetes service manager: create Job %s/%s: %w", p.namespace, p.name, err)
	}
	r.created = true
	ownedBy(&p.service.ObjectMeta, created)
	if _, err := r.client.CoreV1().Services(p.namespace).Create(ctx, p.service, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kubernetes service manager: create Service %s/%s: %w", p.namespace, p.name, err)
	}
	if p.secret != nil {
		ownedBy(&p.secret.ObjectMeta, created)
		if _, err := r.client.CoreV1().Secrets(p.namespace).Create(ctx, p.secret, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("kubernetes service manager: create Secret %s/%s: %w", p.namespace, p.name, err)
		}
	}
	patch := []byte(`{"spec":{"suspend":false}}`)
	if _, err := jobs.Patch(ctx, p.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("kubernetes service manager: start Job %s/%s: %w", p.namespace, p.name, err)
	}
	r.say("kubernetes: Job %s/%s created (%d shards, image %s); the shards start at the barrier http://%s-0.%s:%d",
		p.namespace, p.name, r.job.Shards, r.m.cfg.Image, p.name, p.name, sdk.ShardBarrierPort)
	return nil
}

// cleanup deletes the Job (its pods go with it) and its Service and
// Secret, unless keep_job; it runs also after Ctrl-C, so it does not use
// the run's context. Owner references would remove the Service and Secret
// too, but only where the garbage collector runs; deleting them here does
// not depend on it.
func (r *run) cleanup() {
	p := r.plan
	if !r.created {
		return // the Job was never created: nothing it would own exists
	}
	if r.m.cfg.KeepJob {
		r.say("kubernetes: kept Job %s/%s (keep_job); delete it with: kubectl delete job -n %s %s", p.namespace, p.name, p.namespace, p.name)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bg := metav1.DeletePropagationBackground
	var errs []error
	if err := r.client.BatchV1().Jobs(p.namespace).Delete(ctx, p.name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete the Job: %w", err))
	}
	if err := r.client.CoreV1().Services(p.namespace).Delete(ctx, p.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete the Service: %w", err))
	}
	if p.secret != nil {
		if err := r.client.CoreV1().Secrets(p.namespace).Delete(ctx, p.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete the Secret: %w", err))
		}
	}
	if len(errs) > 0 {
		r.say("kubernetes: Warning: clean up %s/%s: %v (delete it with: kubectl delete job,service,secret -n %s %s)",
			p.namespace, p.name, errors.Join(errs...), p.namespace, p.name)
		return
	}
	r.say("kubernetes: deleted Job %s/%s and what it owns", p.namespace, p.name)
}

// apiLogs reads a container's log through the API server (pods/log).
func apiLogs(client k8s.Interface) LogSource {
	return func(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error) {
		return client.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container}).Stream(ctx)
	}
}

// jobCondition returns the Job's condition of type t when it is true.
func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if c := &j.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}
