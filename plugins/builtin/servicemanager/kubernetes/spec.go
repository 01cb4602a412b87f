package kubernetes

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/shardbarrier"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	// containerName is the shard container in every pod.
	containerName = "aiperf"
	// podArtifactDir is where a shard writes its artifacts inside its pod
	// (the result leaves through the log, so any writable path will do).
	podArtifactDir = "/tmp/aiperf"
	// terminationLog is Kubernetes' default terminationMessagePath, where
	// the shard writes its status and checksum.
	terminationLog = "/dev/termination-log"
	// safetyTTL removes a finished Job the CLI could not clean up (killed
	// with SIGKILL) after an hour; unset with keep_job.
	safetyTTL = 3600

	labelName     = "app.kubernetes.io/name"
	labelInstance = "app.kubernetes.io/instance"
	labelIndex    = "batch.kubernetes.io/job-completion-index"

	apiKeyEnv     = "AIPERF_API_KEY"
	headerEnvPfx  = "AIPERF_SECRET_HEADER_"
	apiKeySecret  = "api-key"
	headerSecretF = "header-%d"
)

// plan is everything RunShards creates for one run.
type plan struct {
	name, namespace string
	job             *batchv1.Job
	service         *corev1.Service
	// secret is nil when the command line holds no credentials.
	secret *corev1.Secret
}

// buildPlan renders the Job, its headless Service and (when the command
// line holds credentials) its Secret. name is the shared object name.
func buildPlan(cfg Settings, namespace, name string, job sdk.ShardJob, env func(string) string) (*plan, error) {
	res, err := parseResources(cfg.Resources)
	if err != nil {
		return nil, err
	}
	args, secretData, envVars := splitSecrets(job.Args, env)
	for i := range envVars {
		envVars[i].ValueFrom.SecretKeyRef.Name = name
	}
	barrier := fmt.Sprintf("http://%s-0.%s:%d%s", name, name, sdk.ShardBarrierPort, shardbarrier.Path)
	args = append([]string{"profile"}, args...)
	args = append(args,
		"--shard-index=$(JOB_COMPLETION_INDEX)",
		"--shard-count="+strconv.Itoa(job.Shards),
		"--shard-barrier="+barrier,
		fmt.Sprintf("--shard-barrier-listen=:%d", sdk.ShardBarrierPort))
	if job.BarrierTimeout > 0 {
		args = append(args, "--shard-barrier-timeout="+seconds(job.BarrierTimeout))
	}
	args = append(args, "--artifact-dir="+podArtifactDir, "--ui=none", "--shard-emit-result")
	if job.Exact {
		args = append(args, "--exact")
	}

	labels := map[string]string{labelName: "aiperf", labelInstance: name}
	n := int32(job.Shards)
	var ttl *int32
	if !cfg.KeepJob {
		ttl = ptr.To[int32](safetyTTL)
	}
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Completions:    &n,
			Parallelism:    &n,
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			// A failed shard is never re-run late (it would miss the start
			// barrier); the others run to their end.
			BackoffLimitPerIndex: ptr.To[int32](0),
			// Created suspended: its pods start once the Service (and
			// Secret) they need exist.
			Suspend:                 ptr.To(true),
			TTLSecondsAfterFinished: ttl,
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				// The shards do not share one plan, or they could not all
				// start: nothing will be measured, stop every shard now.
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr.To(containerName), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn,
					Values: []int32{sdk.ShardExitPlanMismatch, sdk.ShardExitBarrierTimeout},
				}},
				// A shard evicted or preempted is lost like any failed
				// shard (a replacement would come after the start): its
				// index fails, the others finish, the result is PARTIAL.
				{Action: batchv1.PodFailurePolicyActionFailIndex, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
					{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
				}},
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// <job>-0.<service> is shard 0's barrier address.
					Subdomain:                    name,
					AutomountServiceAccountToken: ptr.To(false),
					EnableServiceLinks:           ptr.To(false),
					NodeSelector:                 cfg.NodeSelector,
					Containers: []corev1.Container{{
						Name:                     containerName,
						Image:                    cfg.Image,
						Args:                     args,
						Env:                      envVars,
						Resources:                corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
						Ports:                    []corev1.ContainerPort{{Name: "barrier", ContainerPort: sdk.ShardBarrierPort, Protocol: corev1.ProtocolTCP}},
						TerminationMessagePath:   terminationLog,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					}},
				},
			},
		},
	}
	if len(res) == 0 {
		j.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			// The barrier must be reachable before any pod is Ready
			// (there is no readiness probe: a shard is ready when it runs).
			PublishNotReadyAddresses: true,
			Selector:                 map[string]string{labelInstance: name},
			Ports: []corev1.ServicePort{{
				Name: "barrier", Port: sdk.ShardBarrierPort, TargetPort: intstr.FromInt32(sdk.ShardBarrierPort), Protocol: corev1.ProtocolTCP,
			}},
		},
	}
	p := &plan{name: name, namespace: namespace, job: j, service: svc}
	if len(secretData) > 0 {
		p.secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
			Type:       corev1.SecretTypeOpaque,
			Data:       secretData,
		}
	}
	return p, nil
}

// ownedBy makes the Job the owner of obj, so deleting the Job (or the
// TTL controller) removes it too.
func ownedBy(obj *metav1.ObjectMeta, job *batchv1.Job) {
	obj.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
		BlockOwnerDeletion: ptr.To(false),
	}}
}

// seconds renders d as the float seconds --shard-barrier-timeout takes.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// parseResources reads "cpu=2,memory=4Gi" (the resources setting).
func parseResources(s string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("setting resources %q: item %q: want name=quantity (e.g. cpu=2,memory=4Gi)", s, item)
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("setting resources %q: %s=%s: %w", s, k, v, err)
		}
		if _, dup := out[corev1.ResourceName(k)]; dup {
			return nil, fmt.Errorf("setting resources %q: %s given twice", s, k)
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}

// splitSecrets takes the credentials out of a shard command line: the
// --api-key value becomes the AIPERF_API_KEY environment variable (the
// config reads AIPERF_<KEY>), a credential header becomes "--header
// $(AIPERF_SECRET_HEADER_<i>)", which the kubelet expands from the
// container's environment at start, and both variables come from the
// Secret. Every other "$" is doubled so the kubelet's $(VAR) expansion
// leaves the user's arguments as they were. Without --api-key, the
// launcher's own AIPERF_API_KEY is forwarded the same way (a local shard
// inherits it). The returned env vars' SecretKeyRef names no Secret yet.
func splitSecrets(args []string, env func(string) string) ([]string, map[string][]byte, []corev1.EnvVar) {
	out := make([]string, 0, len(args))
	data := map[string][]byte{}
	var headerEnvs []corev1.EnvVar
	apiKey, haveKey := "", false
	nextHeader := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--api-key" && i+1 < len(args):
			apiKey, haveKey = args[i+1], true
			i++
			continue
		case strings.HasPrefix(a, "--api-key="):
			apiKey, haveKey = strings.TrimPrefix(a, "--api-key="), true
			continue
		}
		val, has, consumed := headerValue(args, i)
		if has && config.HeaderItemHasSecret(val) {
			key := fmt.Sprintf(headerSecretF, nextHeader)
			name := headerEnvPfx + strconv.Itoa(nextHeader)
			nextHeader++
			data[key] = []byte(val)
			headerEnvs = append(headerEnvs, secretEnv(name, key))
			out = append(out, "--header", "$("+name+")")
			i += consumed - 1
			continue
		}
		out = append(out, strings.ReplaceAll(a, "$", "$$"))
	}
	if !haveKey && env != nil {
		apiKey = env(apiKeyEnv)
		haveKey = apiKey != ""
	}
	var envs []corev1.EnvVar
	if haveKey {
		data[apiKeySecret] = []byte(apiKey)
		envs = append(envs, secretEnv(apiKeyEnv, apiKeySecret))
	}
	envs = append(envs, headerEnvs...)
	if len(data) == 0 {
		return out, nil, nil
	}
	return out, data, envs
}

// headerValue reads a -H/--header option at args[i] in any of pflag's
// spellings (-H v, -H=v, -Hv, --header v, --header=v) and says how many
// arguments it spans.
func headerValue(args []string, i int) (string, bool, int) {
	a := args[i]
	switch {
	case a == "-H" || a == "--header":
		if i+1 < len(args) {
			return args[i+1], true, 2
		}
	case strings.HasPrefix(a, "--header="):
		return strings.TrimPrefix(a, "--header="), true, 1
	case strings.HasPrefix(a, "-H="):
		return strings.TrimPrefix(a, "-H="), true, 1
	case strings.HasPrefix(a, "-H") && len(a) > 2:
		return a[2:], true, 1
	}
	return "", false, 0
}

func secretEnv(name, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{Key: key},
	}}
}
