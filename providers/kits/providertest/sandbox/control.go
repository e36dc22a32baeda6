package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxControlBody bounds the body of a control request.
const maxControlBody = 64 << 10

// control serves the /_sandbox/ endpoints; see the package documentation.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/_sandbox":
		if !allow(w, r, http.MethodGet) {
			return
		}
		s.index(w, r)
	case "/_sandbox/faults":
		if !allow(w, r, http.MethodGet, http.MethodPost, http.MethodDelete) {
			return
		}
		switch r.Method {
		case http.MethodPost:
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxControlBody))
			if err != nil {
				writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
				return
			}
			upstream, f, err := decodeFaultsRequest(body)
			if err != nil {
				writeError(w, http.StatusBadRequest, err.Error())
				return
			}
			s.SetFaults(upstream, f)
		case http.MethodDelete:
			switch name := r.URL.Query().Get("upstream"); {
			case name == "" || name == All:
				s.ResetFaults()
			case isUpstream(name):
				s.SetFaults(name, Faults{})
			default:
				writeError(w, http.StatusBadRequest, "unknown upstream "+quote(name)+" (known: "+strings.Join(Upstreams(), ", ")+")")
				return
			}
		}
		writeJSON(w, http.StatusOK, s.faultsDoc())
	case "/_sandbox/stats":
		if !allow(w, r, http.MethodGet) {
			return
		}
		writeJSON(w, http.StatusOK, s.statsDoc())
	case "/_sandbox/stats/reset":
		if !allow(w, r, http.MethodPost) {
			return
		}
		s.ResetCalls()
		writeJSON(w, http.StatusOK, s.statsDoc())
	default:
		writeError(w, http.StatusNotFound, "no control endpoint "+r.URL.Path+
			" (known: /_sandbox/, /_sandbox/faults, /_sandbox/stats, /_sandbox/stats/reset)")
	}
}

// index describes the sandbox as seen from the request's host.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	root := "http://" + r.Host
	ids := make([]string, 0, len(s.places))
	for _, p := range s.places {
		ids = append(ids, p.ID)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"upstreams": UpstreamURLs(root),
		"base_urls": BaseURLs(root),
		"hud_token": s.hudToken,
		"places":    ids,
	})
}

// faultsDoc is the body of every /_sandbox/faults answer: the knobs of
// every upstream.
func (s *Server) faultsDoc() map[string]faultsJSON {
	out := make(map[string]faultsJSON, len(upstreamMounts))
	for _, name := range Upstreams() {
		out[name] = s.Faults(name).toJSON()
	}
	return out
}

// statsDoc is the body of GET /_sandbox/stats: {"census": 12, ...,
// "routes": {"census": {"GET /census/geocoder/geographies/address": 12}}}.
func (s *Server) statsDoc() map[string]any {
	out := make(map[string]any, len(upstreamMounts)+1)
	routes := make(map[string]map[string]int, len(upstreamMounts))
	for _, name := range Upstreams() {
		out[name] = s.Calls(name)
		routes[name] = s.RouteCalls(name)
	}
	out["routes"] = routes
	return out
}

func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on "+r.URL.Path)
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "sandbox: encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n')) //nolint:errcheck // the client may have gone
}

// writeError answers {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
