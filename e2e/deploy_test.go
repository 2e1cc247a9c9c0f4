package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
	"gopkg.in/yaml.v3"
)

// TestDeployFiles checks what cannot run here for syntax: the HAProxy
// config with haproxy -c, the Kubernetes manifests (each object's kind,
// probes on /healthz and /readyz, the ConfigMap's proxy.yaml loading as
// toolfold would load it), and the image's proxy.yaml and Dockerfile.
func TestDeployFiles(t *testing.T) {
	t.Parallel()
	env := func(k string) (string, bool) {
		switch k {
		case "TOOLFOLD_BEARER_TOKEN", "REDIS_PASSWORD":
			return "t", true
		case "TOOLFOLD_STORE_KEY":
			return "0123456789abcdef0123456789abcdef", true
		}
		return "", false
	}
	load := func(name string, data []byte) {
		t.Helper()
		if _, err := config.Parse(name, data, &config.LoadOptions{LookupEnv: env}); err != nil {
			t.Errorf("%s does not load: %v", name, err)
		}
	}

	haproxy := needDebian(t, "haproxy", "haproxy")
	if out, err := exec.Command(haproxy, "-c", "-f", "../deploy/haproxy.cfg").CombinedOutput(); err != nil {
		t.Errorf("haproxy -c -f deploy/haproxy.cfg: %v\n%s", err, out)
	}

	image, err := os.ReadFile("../deploy/proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	load("deploy/proxy.yaml", image)

	docker, err := os.ReadFile("../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM golang:1.26", "go build", "python3", "nodejs", "COPY deploy/proxy.yaml /etc/toolfold/proxy.yaml", `"serve", "-c", "/etc/toolfold/proxy.yaml"`} {
		if !bytes.Contains(docker, []byte(want)) {
			t.Errorf("deploy/Dockerfile lacks %q", want)
		}
	}

	kinds := map[string]int{}
	for _, file := range []string{"../deploy/k8s/toolfold.yaml", "../deploy/k8s/redis.yaml"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			kind, _ := obj["kind"].(string)
			if obj["apiVersion"] == nil || kind == "" {
				t.Errorf("%s: an object without apiVersion or kind: %v", file, obj)
			}
			kinds[kind]++
			if kind == "ConfigMap" {
				data, _ := obj["data"].(map[string]any)
				cfg, _ := data["proxy.yaml"].(string)
				if !strings.Contains(cfg, "url: redis://:${REDIS_PASSWORD}@") || !strings.Contains(cfg, "key: ${TOOLFOLD_STORE_KEY}") {
					t.Errorf("the ConfigMap's proxy.yaml does not point store: at Redis with a password and a key")
				}
				load("deploy/k8s ConfigMap proxy.yaml", []byte(cfg))
			}
		}
		f.Close()
	}
	for _, k := range []string{"ConfigMap", "Deployment", "Service", "Ingress", "StatefulSet", "NetworkPolicy"} {
		if kinds[k] == 0 {
			t.Errorf("deploy/k8s has no %s (kinds: %v)", k, kinds)
		}
	}
	redis, _ := os.ReadFile("../deploy/k8s/redis.yaml")
	for _, want := range []string{"--requirepass", "podSelector: {matchLabels: {app: toolfold}}"} {
		if !bytes.Contains(redis, []byte(want)) {
			t.Errorf("deploy/k8s/redis.yaml lacks %q", want)
		}
	}
	manifest, _ := os.ReadFile("../deploy/k8s/toolfold.yaml")
	for _, want := range []string{"path: /healthz", "path: /readyz", "upstream-hash-by: \"$http_mcp_session_id\"", "terminationGracePeriodSeconds"} {
		if !bytes.Contains(manifest, []byte(want)) {
			t.Errorf("deploy/k8s/toolfold.yaml lacks %q", want)
		}
	}
}
