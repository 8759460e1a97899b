// Package grafana holds journalship's Grafana provisioning and dashboards
// (provisioning/ and dashboards/, mounted into Grafana by the deployment)
// and the tests that keep them honest.
//
// The dashboards are plain Grafana 11/12 JSON: edit them in Grafana, export
// them and commit the JSON. The tests decode each one strictly (unknown or
// misspelled fields fail), check its panels, targets, data source
// references, template variables and data links against datasources.yaml,
// and then run every query of every panel and variable against a real Loki
// and a real Prometheus holding generated corpora of journals of every
// format (Cortex Plane, Codelia, OrbitMesh, Claude Code) shipped by
// journalship itself, interpolating Grafana's variables as Grafana does,
// and compare each answer with the numbers computed independently from
// the corpora's ground truth and the test's price table. See README.md.
package grafana
