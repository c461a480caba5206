package dev.clockwork.cli.simulate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.clockwork.cli.common.Json;
import java.io.PrintWriter;

/**
 * {@code -json}: one JSON object per result as it comes, with the counts behind the ratio:
 * {@code {"trace","capacity","unit","policy","threads","accesses","hits","hit_ratio"}}; unit is
 * {@code entries} or {@code bytes}, the ratio rounded to six decimals. A Clockwork cache's also
 * has {@code "admission_rejects"} (its stats' count); a result of several threads has the same
 * policy's single-threaded {@code "hits_1_thread"} and {@code "hit_ratio_1_thread"} (and
 * {@code "admission_rejects_1_thread"}) beside its own.
 */
public final class JsonReport implements SimReport {
    private final PrintWriter out;

    public JsonReport(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void traceStarted(Trace trace) {
    }

    @Override
    public void row(SimResult r) {
        out.println(Json.line(toJson(r)));
        out.flush();
    }

    @Override
    public void traceDone() {
    }

    /** The JSON object of a result. */
    public static ObjectNode toJson(SimResult r) {
        ObjectNode o = Json.object();
        o.put("trace", r.trace());
        o.put("capacity", r.capacity());
        o.put("unit", r.bytes() ? "bytes" : "entries");
        o.put("policy", r.policy());
        o.put("threads", r.threads());
        o.put("accesses", r.accesses());
        o.put("hits", r.hits());
        Json.putRounded(o, "hit_ratio", r.hitRatio());
        if (r.admissionRejects() != SimResult.NOT_EXPOSED) {
            o.put("admission_rejects", r.admissionRejects());
        }
        SimResult single = r.singleThread();
        if (single != null) {
            o.put("hits_1_thread", single.hits());
            Json.putRounded(o, "hit_ratio_1_thread", single.hitRatio());
            if (single.admissionRejects() != SimResult.NOT_EXPOSED) {
                o.put("admission_rejects_1_thread", single.admissionRejects());
            }
        }
        return o;
    }
}
