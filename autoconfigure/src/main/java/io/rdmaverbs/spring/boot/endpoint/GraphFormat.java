package io.rdmaverbs.spring.boot.endpoint;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/** The text renderings of the resource graph. */
public enum GraphFormat {

    /** A Mermaid flowchart: paste it into any Markdown viewer that renders Mermaid. */
    MERMAID,

    /** Graphviz DOT: {@code dot -Tsvg}. */
    DOT;

    /** The format named {@code name} (any case), or {@code null} when there is none. */
    static @Nullable GraphFormat of(String name) {
        for (GraphFormat f : values()) {
            if (f.name().equals(name.trim().toUpperCase(Locale.ROOT))) {
                return f;
            }
        }
        return null;
    }
}
