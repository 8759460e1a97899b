package output

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/enrich"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/kv"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pipeline"
	"github.com/journalship/journalship/pricing"
	"github.com/journalship/journalship/redact"
	"github.com/journalship/journalship/tenant"
)

// Setting documents one plugin property. The settings table of
// docs/settings.md is generated from Settings (see
// TestSettingsDocListsEverySetting).
type Setting struct {
	Name    string
	Default string
	Help    string
}

// Settings lists every property of `[OUTPUT] Name journalship`: the
// plugin's own and, after Format_Roots, those the registered formats own.
var Settings = withFormatSettings([]Setting{
	{"Loki_URL", "http://127.0.0.1:3100", "Loki's base URL; pushes go to <URL>/loki/api/v1/push."},
	{"Tenant_ID", "", "Sent as X-Scope-OrgID (multi-tenant Loki): every journal's tenant, unless the tenant follows the path (Tenant_Roots, Tenant_Path_Pattern)."},
	{"Tenant_Roots", "", "A tenant per directory: tenant=/dir:/dir2,tenant2=/dir3. A journal goes to the tenant of the deepest root holding it."},
	{"Tenant_Path_Pattern", "", "Regular expression on a journal's path whose group (?P<tenant>...) names its tenant, for journals under no Tenant_Roots root."},
	{"Tenant_Fallback", "", "Tenant of journals no tenant rule places; empty: their lines are dead-lettered (reason no_tenant), never sent to another tenant."},
	{"HTTP_User", "", "Basic-auth user."},
	{"HTTP_Passwd", "", "Basic-auth password."},
	{"HTTP_Passwd_File", "", "File holding the basic-auth password (instead of HTTP_Passwd)."},
	{"Bearer_Token", "", "Bearer token."},
	{"Bearer_Token_File", "", "File holding the bearer token; re-read when it changes."},
	{"TLS_CA_File", "", "PEM CA bundle trusted for Loki's certificate."},
	{"TLS_Cert_File", "", "Client certificate (mutual TLS)."},
	{"TLS_Key_File", "", "Client key (mutual TLS)."},
	{"TLS_Verify", "on", "Verify Loki's certificate."},
	{"Headers", "", "Extra request headers: Name=value,Name2=value2."},
	{"Timeout", "10s", "Per-request timeout."},
	{"Max_Request_Bytes", "1M", "Uncompressed size above which a flush is split into several requests."},
	{"Log_Key", "log", "Record key holding the journal line (tail's Key)."},
	{"Path_Key", "file", "Record key holding the file path (tail's Path_Key)."},
	{"Offset_Key", "offset", "Record key holding the line's byte offset (tail's Offset_Key)."},
	{"Labels", "service_name=agent-sessions", "Static stream labels: k=v,k2=v2."},
	{"Label_Keys", "format,event_type,node", "Per-line values sent as stream labels (bounded keys only)."},
	{"Metadata_Keys", "job_id,session_id,run_id,seq,pod,agent_id,model,step_index,invocation_id,tool_name,file,byte_offset,integrity,state,role,end_reason,tokens_in,tokens_out,tokens_cache_read,tokens_cache_write,annotations", "Per-line values sent as structured metadata."},
	{"Allow_High_Cardinality_Labels", "off", "Allow job/session/... keys in Label_Keys (not for large clusters)."},
	{"Node_Name", "$NODE_NAME or the host name", "The node label."},
	{"Format", "auto", "Journal format of every file (" + strings.Join(registry.Names(), ", ") + "), or auto: by path, confirmed by the first line."},
	{"Format_Roots", "", "Restrict formats to roots: format=/dir:/dir2,format2=/dir3. Unset: each format's layout anywhere."},
	{"Redact_Secrets", "on", "Replace secrets (Gitleaks' rules) in every line before it leaves the node, dead letters included: <REDACTED-SECRET:rule>."},
	{"Redact_Rules", "", "Gitleaks TOML rule file replacing the built-in rules (or extending them: Redact_Rules_Extend, or [extend] useDefault in the file)."},
	{"Redact_Rules_Extend", "off", "Add Redact_Rules' rules to the built-in ones instead of replacing them."},
	{"Redact_Generic", "off", "Also the catch-all rules (generic-api-key...): more secrets found, more false positives."},
	{"Redact_Hash", "off", "Append a keyed hash of each secret (HMAC with Redact_Key_File), so one secret can be followed across lines unread."},
	{"Redact_Key_File", "/var/lib/journalship/redact.key", "The node's HMAC key of Redact_Hash: created (32 random bytes, mode 0600) when missing."},
	{"Redact_Allow_Rules", "", "Rule ids never redacted: rule,rule2."},
	{"Redact_Allow_Values", "", "Literal values never redacted: value,value2."},
	{"Redact_Allow_Paths", "", "Journal path globs whose lines are never redacted: /glob,/glob2."},
	{"Max_Line_Bytes", "256K", "Longer lines are dead-lettered (Loki's max_line_size)."},
	{"Old_Entries", "rewrite", "Entries Loki would refuse for their time (too old, too new, too far behind their stream): rewrite (stamp with a time Loki accepts, the same on every retry; original_timestamp keeps the event's) or dead_letter."},
	{"Max_Entry_Age", "168h", "Loki's reject_old_samples_max_age."},
	{"Max_Future_Skew", "10m", "Loki's creation_grace_period."},
	{"Max_Behind", "1h", "How far behind its stream's newest entry Loki's ingester accepts one (half its max_chunk_age); older entries follow Old_Entries before they are sent. 0: off."},
	{"Ledger_Path", "/var/lib/journalship/ledger.db", "Shipping ledger (SQLite); shared by every instance using the same path."},
	{"Dead_Letter_Path", "/var/lib/journalship/deadletter.jsonl", "Dead-letter JSONL file."},
	{"Metrics_Address", "127.0.0.1:2021", "Prometheus endpoint (one per process); off disables it."},
	{metrics.MaxModelValuesSetting, "100", "Distinct model label values the token and cost metrics keep besides the price table's models (one limit per process); later ones count as other."},
	{"Price_File", "", "LLM price table (YAML; see pricing/default_prices.yaml): cost_usd on LLM_RESPONSE lines. Empty: the built-in table; none: no cost."},
	{"Price_Reload_Interval", "10s", "How often Price_File is checked for changes."},
	{"Lookbehind_Window", "256K", "Bytes read before a chunk's first line to judge seq continuity."},
	{"Log_Level", "info", "error, warn, info or debug."},
})

// withFormatSettings inserts the formats' settings after Format_Roots.
func withFormatSettings(own []Setting) []Setting {
	i := slices.IndexFunc(own, func(s Setting) bool { return s.Name == "Format_Roots" }) + 1
	var formats []Setting
	for _, s := range registry.Settings() {
		formats = append(formats, Setting(s))
	}
	return slices.Concat(own[:i], formats, own[i:])
}

// FlagName is a setting's CLI flag: Loki_URL is loki-url.
func FlagName(setting string) string {
	return strings.ReplaceAll(strings.ToLower(setting), "_", "-")
}

// config is an instance's parsed configuration.
type config struct {
	chunk      chunk.Config
	pipeline   pipeline.Config
	loki       loki.Config
	ledger     ledger.Config
	ledgerOff  bool
	deadLetter deadletter.Config
	metrics    metrics.Config
	pricing    pricing.Config
	pricingOff bool
	logLevel   level
}

// parseConfig reads every setting through get.
func parseConfig(get Getter) (config, error) {
	p := &parser{get: get}
	c := config{chunk: chunk.DefaultConfig(), pipeline: pipeline.DefaultConfig(), loki: loki.DefaultConfig(),
		ledger: ledger.DefaultConfig(), deadLetter: deadletter.DefaultConfig(), metrics: metrics.DefaultConfig(), pricing: pricing.DefaultConfig()}
	p.lokiSettings(&c.loki)
	p.str("Log_Key", &c.chunk.LogKey)
	p.str("Path_Key", &c.chunk.PathKey)
	p.str("Offset_Key", &c.chunk.OffsetKey)
	p.pipelineSettings(&c.pipeline)
	p.str("Ledger_Path", &c.ledger.Path)
	c.ledgerOff = strings.EqualFold(c.ledger.Path, "none")
	p.str("Dead_Letter_Path", &c.deadLetter.Path)
	p.str("Metrics_Address", &c.metrics.Address)
	if strings.EqualFold(c.metrics.Address, "off") {
		c.metrics.Address = ""
	}
	p.count(metrics.MaxModelValuesSetting, &c.metrics.MaxModelValues)
	p.str("Price_File", &c.pricing.Path)
	c.pricingOff = strings.EqualFold(c.pricing.Path, "none")
	p.duration("Price_Reload_Interval", &c.pricing.ReloadInterval)
	c.pipeline.Tenants.Default = c.loki.TenantID
	c.loki.MaxBehind = c.pipeline.MaxBehind
	c.logLevel = p.level("Log_Level")
	if p.err != nil {
		return c, p.err
	}
	return c, c.validate()
}

// CheckSettings parses and validates every setting read through get, as
// NewInstance does, and opens nothing. It returns the ledger's
// configuration ("" Path when Ledger_Path is none), for a command that
// reads the ledger without shipping (a retention dry run).
func CheckSettings(get Getter) (ledger.Config, error) {
	c, err := parseConfig(get)
	if err != nil {
		return ledger.Config{}, err
	}
	if c.ledgerOff {
		c.ledger.Path = ""
	}
	return c.ledger, nil
}

// FormatSettings parses and validates every setting read through get, as
// NewInstance does, and returns how journal formats are found (Format,
// Format_Roots): what a command beside the plugin (retention) needs to
// judge each file by the format the plugin shipped it with.
func FormatSettings(get Getter) (registry.Config, error) {
	c, err := parseConfig(get)
	if err != nil {
		return registry.Config{}, err
	}
	return c.pipeline.Formats, nil
}

// RedactSettings parses and validates every setting read through get, as
// NewInstance does, and returns how secrets are redacted (Redact_*): what
// a command that reports secrets without shipping (verify --secrets)
// needs to find what the plugin would replace.
func RedactSettings(get Getter) (redact.Config, error) {
	c, err := parseConfig(get)
	if err != nil {
		return redact.Config{}, err
	}
	return c.pipeline.Redact, nil
}

func (c config) validate() error {
	for _, err := range []error{c.chunk.Validate(), c.pipeline.Validate(), c.loki.Validate(), c.deadLetter.Validate(), c.metrics.Validate(), c.pricing.Validate()} {
		if err != nil {
			return err
		}
	}
	if !c.ledgerOff {
		return c.ledger.Validate()
	}
	return nil
}

func (p *parser) lokiSettings(c *loki.Config) {
	p.str("Loki_URL", &c.URL)
	p.str("Tenant_ID", &c.TenantID)
	p.str("HTTP_User", &c.Username)
	p.str("HTTP_Passwd", &c.Password)
	p.str("HTTP_Passwd_File", &c.PasswordFile)
	p.str("Bearer_Token", &c.BearerToken)
	p.str("Bearer_Token_File", &c.BearerTokenFile)
	p.str("TLS_CA_File", &c.CAFile)
	p.str("TLS_Cert_File", &c.CertFile)
	p.str("TLS_Key_File", &c.KeyFile)
	verify := true
	p.bool("TLS_Verify", &verify)
	c.InsecureSkipVerify = !verify
	p.headers("Headers", &c.Headers)
	p.duration("Timeout", &c.Timeout)
	p.size("Max_Request_Bytes", &c.MaxRequestBytes)
}

func (p *parser) pipelineSettings(c *pipeline.Config) {
	if s := p.get("Labels"); s != "" {
		m, err := enrich.ParseStatic(s)
		p.fail("Labels", err)
		c.Enrich.Static = m
	} else {
		c.Enrich.Static = map[string]string{"service_name": "agent-sessions"}
	}
	p.str("Node_Name", &c.Enrich.Node)
	p.keys("Label_Keys", &c.Layout.Labels)
	p.keys("Metadata_Keys", &c.Layout.Metadata)
	p.bool("Allow_High_Cardinality_Labels", &c.Layout.AllowHighCardinality)
	p.str("Format", &c.Formats.Format)
	if s := p.get("Format_Roots"); s != "" {
		roots, err := registry.ParseRoots(s)
		p.fail("Format_Roots", err)
		c.Formats.Roots = roots
	}
	if s := p.get("Tenant_Roots"); s != "" {
		roots, err := tenant.ParseRoots(s)
		p.fail("Tenant_Roots", err)
		c.Tenants.Roots = roots
	}
	p.str("Tenant_Path_Pattern", &c.Tenants.Pattern)
	p.str("Tenant_Fallback", &c.Tenants.Fallback)
	p.redactSettings(&c.Redact)
	for _, fs := range registry.Settings() {
		if v := strings.TrimSpace(p.get(fs.Name)); v != "" {
			c.Formats.Settings[fs.Name] = v
		}
	}
	p.size("Max_Line_Bytes", &c.MaxLineBytes)
	if s := p.get("Old_Entries"); s != "" {
		c.OldEntries = pipeline.OldEntryPolicy(strings.ToLower(s))
	}
	p.duration("Max_Entry_Age", &c.MaxEntryAge)
	p.duration("Max_Future_Skew", &c.MaxFutureSkew)
	p.duration("Max_Behind", &c.MaxBehind)
	if c.MaxBehind < 0 {
		p.fail("Max_Behind", fmt.Errorf("%s is negative (0 turns the check off)", c.MaxBehind))
	}
	p.size("Lookbehind_Window", &c.Lookbehind.Window)
}

func (p *parser) redactSettings(c *redact.Config) {
	c.KeyFile = "/var/lib/journalship/redact.key"
	p.bool("Redact_Secrets", &c.Enabled)
	p.str("Redact_Rules", &c.Rules)
	p.bool("Redact_Rules_Extend", &c.Extend)
	p.bool("Redact_Generic", &c.Generic)
	p.bool("Redact_Hash", &c.Hash)
	p.str("Redact_Key_File", &c.KeyFile)
	c.AllowRules = p.list("Redact_Allow_Rules")
	c.AllowValues = p.list("Redact_Allow_Values")
	c.AllowPaths = p.list("Redact_Allow_Paths")
	if err := c.Validate(); err != nil {
		var ce *redact.ConfigError
		setting := "Redact_Rules"
		if errors.As(err, &ce) {
			setting = redactSettingOf[ce.Field]
		}
		p.fail(setting, err)
	}
}

// redactSettingOf names the setting of each redact.Config field.
var redactSettingOf = map[string]string{"Enabled": "Redact_Secrets", "Rules": "Redact_Rules",
	"Extend": "Redact_Rules_Extend", "Generic": "Redact_Generic", "Hash": "Redact_Hash", "KeyFile": "Redact_Key_File",
	"AllowRules": "Redact_Allow_Rules", "AllowValues": "Redact_Allow_Values", "AllowPaths": "Redact_Allow_Paths"}

// list parses a comma-separated list (empty items dropped).
func (p *parser) list(name string) []string { return kv.List(p.get(name)) }

// parser reads settings, keeping the first error.
type parser struct {
	get Getter
	err error
}

func (p *parser) fail(name string, err error) {
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("setting %s: %w", name, err)
	}
}

func (p *parser) str(name string, dst *string) {
	if v := strings.TrimSpace(p.get(name)); v != "" {
		*dst = v
	}
}

func (p *parser) bool(name string, dst *bool) {
	switch v := strings.ToLower(strings.TrimSpace(p.get(name))); v {
	case "":
	case "on", "true", "yes", "1":
		*dst = true
	case "off", "false", "no", "0":
		*dst = false
	default:
		p.fail(name, fmt.Errorf("%q is not on/off", v))
	}
}

func (p *parser) duration(name string, dst *time.Duration) {
	v := strings.TrimSpace(p.get(name))
	if v == "" {
		return
	}
	if n, err := strconv.Atoi(v); err == nil {
		*dst = time.Duration(n) * time.Second
		return
	}
	d, err := time.ParseDuration(v)
	p.fail(name, err)
	*dst = d
}

// count parses a whole number of at least 1.
func (p *parser) count(name string, dst *int) {
	v := strings.TrimSpace(p.get(name))
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err == nil && n < 1 {
		err = fmt.Errorf("%d is not at least 1", n)
	}
	p.fail(name, err)
	if err == nil {
		*dst = n
	}
}

// size parses 1048576, 1024K, 1M or 1G.
func (p *parser) size(name string, dst *int) {
	v := strings.ToUpper(strings.TrimSpace(p.get(name)))
	if v == "" {
		return
	}
	mult := 1
	for suffix, m := range map[string]int{"K": 1 << 10, "KB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "G": 1 << 30, "GB": 1 << 30} {
		if num, ok := strings.CutSuffix(v, suffix); ok && num != "" && num[len(num)-1] >= '0' && num[len(num)-1] <= '9' {
			v, mult = num, m
			break
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
	case n < 0:
		err = fmt.Errorf("negative size")
	case n > maxSize/mult:
		err = fmt.Errorf("%q is larger than %d bytes (1T), which no setting takes: a typo?", p.get(name), maxSize)
	}
	p.fail(name, err)
	if err == nil {
		*dst = n * mult
	}
}

// maxSize bounds every size setting (1 TiB), so a typo such as
// 17179869185G is refused instead of wrapping around to a small number.
const maxSize = 1 << 40

func (p *parser) headers(name string, dst *map[string]string) {
	v := p.get(name)
	if strings.TrimSpace(v) == "" {
		return
	}
	m := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			p.fail(name, fmt.Errorf("%q is not Name=value", part))
			return
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	*dst = m
}

func (p *parser) keys(name string, dst *[]pipeline.Key) {
	if v := p.get(name); strings.TrimSpace(v) != "" {
		ks, err := pipeline.ParseKeys(v)
		p.fail(name, err)
		*dst = ks
	}
}

func (p *parser) level(name string) level {
	v := strings.ToLower(strings.TrimSpace(p.get(name)))
	l, ok := levels[v]
	if v != "" && !ok {
		p.fail(name, fmt.Errorf("%q is not error, warn, info or debug", v))
	}
	if v == "" {
		return levelInfo
	}
	return l
}
