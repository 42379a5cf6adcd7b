package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * The {@code verbs} endpoint over HTTP: {@code GET /actuator/verbs} (JSON, or a drawing with
 * {@code ?format=mermaid|dot} as text/plain) and {@code GET /actuator/verbs/{resource}} (404 for an
 * unknown resource).
 */
@EndpointWebExtension(endpoint = VerbsEndpoint.class)
public final class VerbsEndpointWebExtension {

    private static final MimeType TEXT = new MimeType(MimeTypeUtils.TEXT_PLAIN, StandardCharsets.UTF_8);

    private final VerbsEndpoint endpoint;

    public VerbsEndpointWebExtension(VerbsEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @ReadOperation
    public WebEndpointResponse<?> graph(@Nullable String format) {
        if (format == null || format.isBlank() || format.equalsIgnoreCase("json")) {
            return new WebEndpointResponse<>(endpoint.graph());
        }
        GraphFormat f = GraphFormat.of(format);
        if (f == null) {
            String known = Arrays.stream(GraphFormat.values()).map(g -> g.name().toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining(", "));
            return new WebEndpointResponse<>("unknown format '" + format + "'; use json, " + known,
                    WebEndpointResponse.STATUS_BAD_REQUEST, TEXT);
        }
        return new WebEndpointResponse<>(endpoint.render(f), WebEndpointResponse.STATUS_OK, TEXT);
    }

    @ReadOperation
    public WebEndpointResponse<VerbsEndpoint.ResourceReport> resource(@Selector String resource) {
        VerbsEndpoint.ResourceReport report = endpoint.resource(resource);
        return report == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
                : new WebEndpointResponse<>(report);
    }
}
