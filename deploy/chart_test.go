// Package deploy_test checks the Helm chart under helm/askonce and the
// plain manifests rendered from it, without a cluster: Helm's own Go
// packages render the chart, and every object is decoded strictly into
// its k8s.io/api type, so an unknown or misspelt field fails. It is a
// module of its own, so that askonce's module does not carry Helm.
package deploy_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite kubernetes/askonce.yaml from the chart")

const (
	chartDir      = "helm/askonce"
	plainValues   = "kubernetes/values.yaml"
	plainManifest = "kubernetes/askonce.yaml"
)

// render renders the chart as release askonce in namespace askonce with
// the values of valuesFile ("" for the defaults) overridden by set, and
// returns its manifests in Helm's install order.
func render(t *testing.T, valuesFile string, set map[string]any) []releaseutil.Manifest {
	t.Helper()
	return renderAs(t, "askonce", valuesFile, set)
}

// renderAs is render with another release name.
func renderAs(t *testing.T, release, valuesFile string, set map[string]any) []releaseutil.Manifest {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals := chartutil.Values{}
	if valuesFile != "" {
		if vals, err = chartutil.ReadValuesFile(valuesFile); err != nil {
			t.Fatal(err)
		}
	}
	vals = chartutil.CoalesceTables(set, vals)
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: release, Namespace: "askonce", IsInstall: true, Revision: 1}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		t.Fatal(err)
	}
	return manifests
}

// objects are a render's objects, decoded strictly.
type objects struct {
	deployment *appsv1.Deployment
	service    *corev1.Service
	config     *corev1.ConfigMap
	account    *corev1.ServiceAccount
	pdb        *policyv1.PodDisruptionBudget
	ingress    *networkingv1.Ingress
}

// decode decodes every manifest into its k8s.io/api type, refusing
// unknown fields, and fails on a kind the chart should not make.
func decode(t *testing.T, manifests []releaseutil.Manifest) objects {
	t.Helper()
	var o objects
	for _, m := range manifests {
		var into any
		switch m.Head.Kind {
		case "Deployment":
			o.deployment = &appsv1.Deployment{}
			into = o.deployment
		case "Service":
			o.service = &corev1.Service{}
			into = o.service
		case "ConfigMap":
			o.config = &corev1.ConfigMap{}
			into = o.config
		case "ServiceAccount":
			o.account = &corev1.ServiceAccount{}
			into = o.account
		case "PodDisruptionBudget":
			o.pdb = &policyv1.PodDisruptionBudget{}
			into = o.pdb
		case "Ingress":
			o.ingress = &networkingv1.Ingress{}
			into = o.ingress
		default:
			t.Fatalf("%s: unexpected kind %q", m.Name, m.Head.Kind)
		}
		if err := strictDecode(m.Content, into); err != nil {
			t.Errorf("%s (%s): %v", m.Name, m.Head.Kind, err)
		}
	}
	return o
}

// strictDecode decodes a YAML object as the API server does, and more
// strictly: field names are case-sensitive (encoding/json's are not, so
// readOnlyRootFileSystem would pass it), and an unknown or duplicate
// field is an error rather than a warning.
func strictDecode(doc string, into any) error {
	j, err := yaml.YAMLToJSONStrict([]byte(doc))
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, into)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// plain returns the manifests as one YAML stream, as committed.
func plain(manifests []releaseutil.Manifest) []byte {
	var b bytes.Buffer
	b.WriteString("# askonce on Kubernetes: rendered from deploy/helm/askonce with\n# deploy/kubernetes/values.yaml (release askonce, namespace askonce).\n# Do not edit: change the chart and run\n#   (cd deploy && go test -run TestPlainManifestsAreTheChartRendered -update)\n")
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n%s\n", strings.TrimSpace(m.Content))
	}
	return b.Bytes()
}

func TestPlainManifestsAreTheChartRendered(t *testing.T) {
	got := plain(render(t, plainValues, nil))
	if *update {
		if err := os.WriteFile(plainManifest, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(plainManifest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the chart rendered with %s: run (cd deploy && go test -run %s -update)", plainManifest, plainValues, t.Name())
	}
	// What is committed decodes strictly too.
	var ms []releaseutil.Manifest
	for i, doc := range strings.Split(string(want), "\n---\n")[1:] {
		var head releaseutil.SimpleHead
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, releaseutil.Manifest{Name: fmt.Sprintf("%s #%d", plainManifest, i+1), Content: doc, Head: &head})
	}
	if o := decode(t, ms); o.deployment == nil || o.ingress == nil {
		t.Errorf("%s lacks the Deployment or the Ingress", plainManifest)
	}
}

func TestEveryRenderedObjectDecodesStrictly(t *testing.T) {
	for name, set := range map[string]map[string]any{
		"defaults": nil,
		"everything on": {
			"ingress":      map[string]any{"enabled": true, "className": "nginx", "tlsSecretName": "tls", "annotations": map[string]any{"a": "b"}},
			"apiKeys":      map[string]any{"secretName": "keys"},
			"oidc":         map[string]any{"issuer": "https://id.example.com", "secretName": "oidc"},
			"slack":        map[string]any{"secretName": "slack"},
			"smtp":         map[string]any{"secretName": "smtp"},
			"linkSecret":   map[string]any{"secretName": "link"},
			"config":       map[string]any{"SLACK_CHANNEL": "C123", "EMAIL_FROM": "askonce@example.com", "TRUSTED_PROXIES": "10.0.0.0/8"},
			"tolerations":  []any{map[string]any{"key": "k", "operator": "Exists"}},
			"nodeSelector": map[string]any{"pool": "apps"},
		},
		"optional parts off": {
			"serviceAccount":      map[string]any{"create": false, "name": "shared"},
			"podDisruptionBudget": map[string]any{"enabled": false},
		},
	} {
		t.Run(name, func(t *testing.T) {
			set = chartutil.CoalesceTables(set, map[string]any{"publicURL": "https://askonce.example.com"})
			o := decode(t, render(t, "", set))
			if o.deployment == nil || o.service == nil || o.config == nil {
				t.Fatalf("no Deployment, Service or ConfigMap")
			}
		})
	}
}

func TestStrictDecodingRefusesAMisspeltField(t *testing.T) {
	// The check the tests above rely on: a field Kubernetes does not know
	// fails.
	for _, field := range []string{"replica: 2", "replicas: 2\n  replicas: 3", "template:\n    spec:\n      containers:\n        - name: a\n          securityContext:\n            readOnlyRootFileSystem: true"} {
		doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  " + field + "\n"
		if err := strictDecode(doc, &appsv1.Deployment{}); err == nil {
			t.Errorf("%q decoded", field)
		}
	}
}

func TestChartRefusesToRenderWithoutPublicURL(t *testing.T) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := chartutil.ToRenderValues(ch, nil, chartutil.ReleaseOptions{Name: "askonce", Namespace: "askonce", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Render(ch, rv); err == nil || !strings.Contains(err.Error(), "publicURL is required") {
		t.Fatalf("render without publicURL: %v", err)
	}
}

// The defaults are what docs/deploy.md promises: two replicas that stay
// two through a drain, probes that split alive from ready, a pod that
// runs as nobody on a read-only root with requests set, and secrets only
// by reference.
func TestDefaultsRunTwoLockedDownReplicasWithSplitProbes(t *testing.T) {
	o := decode(t, render(t, plainValues, nil))
	d := o.deployment
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v, want 2", d.Spec.Replicas)
	}
	if o.pdb == nil || o.pdb.Spec.MinAvailable == nil || o.pdb.Spec.MinAvailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget %+v, want minAvailable 1", o.pdb)
	}
	if o.account == nil || d.Spec.Template.Spec.ServiceAccountName != o.account.Name {
		t.Errorf("the pods do not run as the chart's ServiceAccount")
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/livez" {
		t.Errorf("liveness probe %+v, want GET /livez", c.LivenessProbe)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("readiness probe %+v, want GET /healthz (it checks the database)", c.ReadinessProbe)
	}
	sc, psc := c.SecurityContext, pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v, want a non-root user", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container security context %+v, want a read-only root, no escalation, no capabilities", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resource requests %v, want cpu and memory", c.Resources.Requests)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		if e.Value != "" {
			t.Errorf("env %s has a literal value; settings go in the ConfigMap, secrets in Secrets", e.Name)
		}
		env[e.Name] = e
	}
	if db := env["ASKONCE_DB"]; db.ValueFrom == nil || db.ValueFrom.SecretKeyRef == nil || db.ValueFrom.SecretKeyRef.Name != "askonce-database" {
		t.Errorf("ASKONCE_DB %+v, want a reference to the Secret askonce-database", db)
	}
	if id := env["ASKONCE_REPLICA_ID"]; id.ValueFrom == nil || id.ValueFrom.FieldRef == nil || id.ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("ASKONCE_REPLICA_ID %+v, want the pod's name", id)
	}
	if got := o.config.Data["ASKONCE_PUBLIC_URL"]; got != "https://askonce.example.com" {
		t.Errorf("ConfigMap ASKONCE_PUBLIC_URL %q", got)
	}
	if o.config.Data["ASKONCE_API_KEYS_FILE"] != "/etc/askonce/keys" {
		t.Errorf("the keys file is not named in the ConfigMap: %v", o.config.Data)
	}
	if strings.Join(c.Args, " ") != "serve" {
		t.Errorf("args %q, want serve (the image's default names a SQLite file)", c.Args)
	}
}

// Each secret the chart is given becomes a reference in the pod, never a
// value in a ConfigMap.
func TestSecretsAreReferencedNotCopied(t *testing.T) {
	o := decode(t, render(t, plainValues, map[string]any{
		"oidc":  map[string]any{"issuer": "https://id.example.com", "secretName": "oidc"},
		"slack": map[string]any{"secretName": "slack"},
		"smtp":  map[string]any{"secretName": "smtp"},
	}))
	refs := map[string]string{}
	for _, e := range o.deployment.Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			refs[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		}
	}
	for name, want := range map[string]string{
		"ASKONCE_OIDC_CLIENT_ID": "oidc/client-id", "ASKONCE_OIDC_CLIENT_SECRET": "oidc/client-secret",
		"ASKONCE_SLACK_BOT_TOKEN": "slack/bot-token", "ASKONCE_SLACK_SIGNING_SECRET": "slack/signing-secret",
		"ASKONCE_SMTP_URL": "smtp/url", "ASKONCE_DB": "askonce-database/url",
	} {
		if refs[name] != want {
			t.Errorf("%s refers to %q, want %q", name, refs[name], want)
		}
	}
	if o.config.Data["ASKONCE_OIDC_ISSUER"] != "https://id.example.com" {
		t.Errorf("the issuer is not in the ConfigMap: %v", o.config.Data)
	}
	for k := range o.config.Data {
		if strings.Contains(k, "SECRET") || strings.Contains(k, "TOKEN") || k == "ASKONCE_DB" {
			t.Errorf("the ConfigMap holds %s", k)
		}
	}
}

// helm lint's checks, by Helm's own package: the chart's metadata, its
// templates and values, with nothing above information level.
func TestChartPassesHelmLint(t *testing.T) {
	l := lint.All(chartDir, map[string]any{"publicURL": "https://askonce.example.com"}, "askonce", false)
	for _, m := range l.Messages {
		if m.Severity > support.InfoSev {
			t.Errorf("helm lint: %s", m)
		} else {
			t.Logf("helm lint: %s", m)
		}
	}
}
