package lokiproc

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
)

// DefaultLimits returns the limits_config Start writes before applying
// Config.Limits. They keep Loki out of the way of tests:
//   - ingestion limits far above what a test sends;
//   - old samples accepted, no query-length cap;
//   - structured metadata allowed;
//   - no service_name or detected_level discovery, so streams and structured
//     metadata come back exactly as they were pushed;
//   - volume and metric-aggregation features off.
func DefaultLimits() map[string]any {
	return map[string]any{
		"ingestion_rate_mb":           64,
		"ingestion_burst_size_mb":     128,
		"per_stream_rate_limit":       "64MB",
		"per_stream_rate_limit_burst": "128MB",
		"reject_old_samples":          false,
		"max_query_length":            "0s",
		"allow_structured_metadata":   true,
		"discover_service_name":       []string{},
		"discover_log_levels":         false,
		"volume_enabled":              false,
		"metric_aggregation_enabled":  false,
	}
}

// lokiConfig is what one Loki process is configured with.
type lokiConfig struct {
	dir      string
	httpPort int
	grpcPort int
	limits   map[string]any // overrides on top of DefaultLimits
	auth     bool           // auth_enabled
}

// render returns the Loki configuration file. It is JSON, which Loki's YAML
// parser reads as YAML, so no YAML library is needed.
func (c lokiConfig) render() ([]byte, error) {
	limits := DefaultLimits()
	maps.Copy(limits, c.limits)
	doc := map[string]any{
		"auth_enabled":     c.auth,
		"target":           "all",
		"server":           c.server(),
		"common":           c.common(),
		"ingester":         ingester(),
		"querier":          map[string]any{"query_ingesters_within": "0s"},
		"query_range":      noQueryCache(),
		"schema_config":    schema(),
		"limits_config":    limits,
		"frontend":         c.frontend(),
		"frontend_worker":  c.frontendWorker(),
		"pattern_ingester": map[string]any{"enabled": false},
		"analytics":        map[string]any{"reporting_enabled": false},
		"tracing":          map[string]any{"enabled": false},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func (c lokiConfig) server() map[string]any {
	return map[string]any{
		"http_listen_address":           "127.0.0.1",
		"http_listen_port":              c.httpPort,
		"grpc_listen_address":           "127.0.0.1",
		"grpc_listen_port":              c.grpcPort,
		"log_level":                     "info",
		"grpc_server_max_recv_msg_size": 64 << 20,
		"grpc_server_max_send_msg_size": 64 << 20,
	}
}

// frontend and frontendWorker point the query-frontend and the querier at
// this process's own scheduler. By default they discover it through the
// scheduler ring, which joins only after a fixed 3s ring check and is polled
// every 10s: /ready then takes ~10s and the first query ~4s more. With a
// fixed address the scheduler serves at once and Loki is ready in <1s.
func (c lokiConfig) frontend() map[string]any {
	return map[string]any{
		"scheduler_address":           fmt.Sprintf("127.0.0.1:%d", c.grpcPort),
		"scheduler_dns_lookup_period": "250ms",
	}
}

func (c lokiConfig) frontendWorker() map[string]any {
	return map[string]any{
		"scheduler_address":   fmt.Sprintf("127.0.0.1:%d", c.grpcPort),
		"dns_lookup_duration": "250ms",
	}
}

func (c lokiConfig) common() map[string]any {
	return map[string]any{
		"instance_addr":      "127.0.0.1",
		"path_prefix":        c.dir,
		"replication_factor": 1,
		"ring": map[string]any{
			"instance_addr": "127.0.0.1",
			"kvstore":       map[string]any{"store": "inmemory"},
		},
		"storage": map[string]any{"filesystem": map[string]any{
			"chunks_directory": filepath.Join(c.dir, "chunks"),
			"rules_directory":  filepath.Join(c.dir, "rules"),
		}},
	}
}

// ingester drops the 15s min_ready_duration before /ready answers 200, and
// lets queries of any age reach the data. By default the querier asks the
// ingester only about the last 3h (see querier.query_ingesters_within) and
// the ingester reads the store only for the last max_chunk_age+~40m, so
// entries pushed with older timestamps (a replayed journal) are accepted
// but not found. The look-back must be exactly -1ns: Loki tests for -1
// ("whole range"); any other negative value makes the ingester window
// empty, so even recent entries vanish.
func ingester() map[string]any {
	return map[string]any{
		"lifecycler":                       map[string]any{"min_ready_duration": "0s", "final_sleep": "0s"},
		"query_store_max_look_back_period": "-1ns",
	}
}

// noQueryCache turns off every query-frontend results cache, so a query
// always sees what was pushed just before it.
func noQueryCache() map[string]any {
	return map[string]any{
		"cache_results":                false,
		"cache_index_stats_results":    false,
		"cache_volume_results":         false,
		"cache_instant_metric_results": false,
		"cache_series_results":         false,
		"cache_label_results":          false,
	}
}

func schema() map[string]any {
	return map[string]any{"configs": []any{map[string]any{
		"from":         "2020-10-24",
		"store":        "tsdb",
		"object_store": "filesystem",
		"schema":       "v13",
		"index":        map[string]any{"prefix": "index_", "period": "24h"},
	}}}
}

// StockLimits returns Limits overrides that bring back what a stock Loki 3
// does and DefaultLimits keeps out of the way: entries older than a week
// refused, busy streams sharded (here from 8 KB/s, so that a test's
// streams are), and a tenant ingestion rate low enough (256 KB/s, bursts
// of 512 KB) that a test meets 429s. The ingester keeps its stock
// max_chunk_age (2h): entries over an hour behind their stream's newest
// are refused.
func StockLimits() map[string]any {
	return map[string]any{
		"ingestion_rate_mb":           0.25,
		"ingestion_burst_size_mb":     0.5,
		"per_stream_rate_limit":       "3MB",
		"per_stream_rate_limit_burst": "15MB",
		"reject_old_samples":          true,
		"reject_old_samples_max_age":  "168h",
		"shard_streams": map[string]any{
			"enabled":      true,
			"desired_rate": "8KB",
		},
	}
}
