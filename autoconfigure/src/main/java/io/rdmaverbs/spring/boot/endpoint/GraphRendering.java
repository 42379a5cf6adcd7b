package io.rdmaverbs.spring.boot.endpoint;

import java.util.List;

import io.rdmaverbs.spring.boot.descriptor.ResourceNode;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.VerbsResource;

/**
 * Draws the resource graph for people: one node per resource, a solid edge from the resource each one
 * was created in, a dashed edge from the resources it uses (CQs, channels, SRQs), a note per lease, and
 * resources whose release would go wrong now outlined in red.
 */
final class GraphRendering {

    private GraphRendering() {
    }

    static String render(List<VerbsResource> resources, GraphFormat format) {
        return switch (format) {
            case MERMAID -> mermaid(resources);
            case DOT -> dot(resources);
        };
    }

    private static String mermaid(List<VerbsResource> resources) {
        StringBuilder sb = new StringBuilder("flowchart TD\n");
        sb.append("  classDef stuck stroke:#d33,stroke-width:3px\n");
        for (VerbsResource r : resources) {
            sb.append("  n").append(r.id()).append("[\"").append(escape(label(r)).replace("\n", "<br/>"))
                    .append("\"]\n");
        }
        for (VerbsResource r : resources) {
            VerbsResource container = ResourceNode.container(r);
            for (VerbsResource p : r.parents()) {
                sb.append("  n").append(p.id()).append(p == container ? " --> n" : " -.-> n").append(r.id())
                        .append('\n');
            }
            List<Lease> leases = r.leases();
            for (int i = 0; i < leases.size(); i++) {
                String id = "l" + r.id() + "_" + i;
                sb.append("  ").append(id).append("([\"lease: ").append(escape(leases.get(i).holder()))
                        .append("\"]) -.-> n").append(r.id()).append('\n');
            }
            if (!r.stuckReferences().isEmpty()) {
                sb.append("  class n").append(r.id()).append(" stuck\n");
            }
        }
        return sb.toString();
    }

    private static String dot(List<VerbsResource> resources) {
        StringBuilder sb = new StringBuilder("digraph verbs {\n  rankdir=TB;\n")
                .append("  node [shape=box, fontname=\"monospace\"];\n");
        for (VerbsResource r : resources) {
            sb.append("  n").append(r.id()).append(" [label=\"").append(escape(label(r)).replace("\n", "\\n"))
                    .append('"').append(r.stuckReferences().isEmpty() ? "" : ", color=red, penwidth=2")
                    .append("];\n");
        }
        for (VerbsResource r : resources) {
            VerbsResource container = ResourceNode.container(r);
            for (VerbsResource p : r.parents()) {
                sb.append("  n").append(p.id()).append(" -> n").append(r.id())
                        .append(p == container ? ";\n" : " [style=dashed];\n");
            }
            List<Lease> leases = r.leases();
            for (int i = 0; i < leases.size(); i++) {
                String id = "l" + r.id() + "_" + i;
                sb.append("  ").append(id).append(" [shape=note, label=\"lease: ")
                        .append(escape(leases.get(i).holder()))
                        .append("\"];\n  ").append(id).append(" -> n").append(r.id()).append(" [style=dashed];\n");
            }
        }
        return sb.append("}\n").toString();
    }

    private static String label(VerbsResource r) {
        return r.kind().shortName() + " " + r.name() + "\n#" + r.id() + " on " + r.ref().device();
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "'");
    }
}
