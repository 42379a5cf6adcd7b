package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code verbs} actuator endpoint, when spring-boot-actuator is present and the endpoint is
 * exposed ({@code management.endpoints.web.exposure.include=verbs}).
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnAvailableEndpoint(VerbsEndpoint.class)
public final class VerbsEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VerbsEndpoint verbsEndpoint(Verbs verbs, VerbsProperties properties) {
        return new VerbsEndpoint(verbs, properties.teardown().policy());
    }

    @Bean
    @ConditionalOnMissingBean
    VerbsEndpointWebExtension verbsEndpointWebExtension(VerbsEndpoint endpoint) {
        return new VerbsEndpointWebExtension(endpoint);
    }
}
