package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpoint;
import io.rdmaverbs.spring.boot.endpoint.VerbsEndpointWebExtension;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.connection.Connections;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@code verbs} actuator endpoint, when spring-boot-actuator is present and the endpoint is
 * exposed ({@code management.endpoints.web.exposure.include=verbs}).
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnAvailableEndpoint(VerbsEndpoint.class)
@EnableConfigurationProperties(VerbsEndpointProperties.class)
public final class VerbsEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VerbsEndpoint verbsEndpoint(Verbs verbs, VerbsProperties properties, VerbsEndpointProperties endpoint,
            ObjectProvider<SanitizingFunction> sanitizingFunctions, ObjectProvider<Connections> connections) {
        return new VerbsEndpoint(verbs, properties.teardown().policy(), sanitizingFunctions.orderedStream().toList(),
                endpoint.showValues(), () -> connections.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    VerbsEndpointWebExtension verbsEndpointWebExtension(VerbsEndpoint verbsEndpoint, VerbsEndpointProperties endpoint) {
        return new VerbsEndpointWebExtension(verbsEndpoint, endpoint.showValues(), endpoint.roles());
    }
}
