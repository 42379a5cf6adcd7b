package io.rdmaverbs.spring.boot.endpoint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * The {@code verbs} endpoint over HTTP: {@code GET /actuator/verbs} (JSON, or a drawing with
 * {@code ?format=mermaid|dot} as text/plain) and {@code GET /actuator/verbs/{resource}} (404 for an
 * unknown resource). Where leases were taken is shown as {@code showValues} allows the request's user:
 * with {@link Show#WHEN_AUTHORIZED}, an authenticated user who has one of {@code roles} (any
 * authenticated user when there are none).
 */
@EndpointWebExtension(endpoint = VerbsEndpoint.class)
public final class VerbsEndpointWebExtension {

    private static final MimeType TEXT = new MimeType(MimeTypeUtils.TEXT_PLAIN, StandardCharsets.UTF_8);

    private final VerbsEndpoint endpoint;
    private final Show showValues;
    private final Set<String> roles;

    public VerbsEndpointWebExtension(VerbsEndpoint endpoint, Show showValues, Set<String> roles) {
        this.endpoint = endpoint;
        this.showValues = showValues;
        this.roles = roles;
    }

    @ReadOperation
    public WebEndpointResponse<?> graph(SecurityContext securityContext, @Nullable String format) {
        if (format == null || format.isBlank() || format.equalsIgnoreCase("json")) {
            return new WebEndpointResponse<>(endpoint.graph(showValues.isShown(securityContext, roles)));
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
    public WebEndpointResponse<VerbsEndpoint.ResourceReport> resource(SecurityContext securityContext,
            @Selector String resource) {
        VerbsEndpoint.ResourceReport report = endpoint.resource(resource, showValues.isShown(securityContext, roles));
        return report == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
                : new WebEndpointResponse<>(report);
    }
}
