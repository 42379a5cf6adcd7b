package io.rdmaverbs.spring.boot.autoconfigure.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A Resilience4j circuit breaker per device context, when resilience4j-circuitbreaker is present. Their
 * registry is private to {@link DeviceCircuitBreakers}, so an application's own
 * {@code CircuitBreakerRegistry} bean (resilience4j-spring-boot's, or declared) is left alone.
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnClass(CircuitBreaker.class)
@ConditionalOnBean(Verbs.class)
public final class VerbsCircuitBreakerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DeviceCircuitBreakers rdmaVerbsCircuitBreakers(VerbsProperties properties) {
        VerbsProperties.CircuitBreaker settings = properties.circuitBreaker();
        return new DeviceCircuitBreakers(CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .slidingWindowSize(settings.slidingWindowSize())
                .minimumNumberOfCalls(settings.minimumNumberOfCalls())
                .waitDurationInOpenState(settings.waitDurationInOpenState())
                .permittedNumberOfCallsInHalfOpenState(settings.permittedCallsInHalfOpenState())
                .build());
    }
}
