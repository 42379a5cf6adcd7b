package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of the {@code verbs} endpoint, named as Spring Boot names {@code env}'s and
 * {@code configprops}'.
 *
 * @param showValues When to show where each lease was taken (its thread and stack frames); masked otherwise.
 * @param roles Roles used to determine whether a user is authorized to be shown where leases were taken.
 *     When empty, all authenticated users are authorized.
 */
@ConfigurationProperties("management.endpoint.verbs")
public record VerbsEndpointProperties(@DefaultValue("never") Show showValues, Set<String> roles) {

    public VerbsEndpointProperties {
        roles = roles == null ? Set.of() : Set.copyOf(roles);
    }
}
