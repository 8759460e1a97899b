// Package deploy holds no code: its tests check the deployment files of
// the repository against each other and against the real parsers of the
// tools that read them.
//
//   - The fragments generated from the registered formats' descriptors
//     (format.Deploy): the tail inputs, their layouts and Format_Roots of
//     the three Fluent Bit configurations, the journal volumes and mounts
//     of the DaemonSet (per team of its Tenant_Roots) and of compose, the
//     roots retention and the simulator are given, compose's tenants and
//     the DaemonSet's copy of the price table: up to date (go test
//     ./deploy -run TestGenerated -update rewrites them).
//   - fluent-bit.conf and its copies (deploy/daemonset, deploy/compose):
//     every journalship setting shown, only keys Fluent Bit 5.1.1 knows,
//     values the plugin's own parser accepts, copies equal but for the
//     listen addresses, Loki_URL, Node_Name and where the cluster's teams
//     and compose's tenants are; every registered format's default layout
//     (format.Format.Layouts, under each of its Format_Roots roots; not the
//     ones found by content alone) read by exactly one tail input of its
//     own, routed to the journalship output, its side files (snapshots,
//     sidecars) by none; every tailed journal placed in its team's tenant
//     (Tenant_Roots), none left to be dead-lettered for want of one.
//   - Dockerfile (BuildKit's parser) and .dockerignore: pinned bases, the
//     same build as make build, a CMD whose -e loads the plugin where the
//     image puts it and whose -c runs the copied configuration, nothing the
//     build needs ignored.
//   - deploy/daemonset (kustomize's krusty and Kubernetes' strict decoder):
//     every manifest listed, every field known, every cross reference
//     (volumes, ports, probes, ConfigMap keys, Service selector, metrics
//     addresses, retention flags) consistent, least privilege; every
//     format's journals of every team mounted at the node's own path,
//     read-only; retention routing tenants as Fluent Bit does.
//   - docker-compose.yml (compose-spec's loader), deploy/compose/loki.yaml
//     (Loki's -verify-config) and prometheus.yml; Loki multi-tenant, every
//     Grafana Loki data source naming compose's tenants in X-Scope-OrgID,
//     and loki.yaml, run by Loki itself, showing each data source exactly
//     its tenants' journals.
package deploy
