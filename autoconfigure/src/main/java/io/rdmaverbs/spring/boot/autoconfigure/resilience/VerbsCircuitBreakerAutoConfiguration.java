package io.rdmaverbs.spring.boot.autoconfigure.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** A Resilience4j circuit breaker per device context, when resilience4j-circuitbreaker is present. */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnClass(CircuitBreaker.class)
@ConditionalOnBean(Verbs.class)
public final class VerbsCircuitBreakerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CircuitBreakerRegistry rdmaVerbsCircuitBreakerRegistry() {
        return CircuitBreakerRegistry.ofDefaults();
    }

    @Bean
    @ConditionalOnMissingBean
    DeviceCircuitBreakers rdmaVerbsCircuitBreakers(CircuitBreakerRegistry registry, VerbsProperties properties) {
        VerbsProperties.CircuitBreaker settings = properties.circuitBreaker();
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .slidingWindowSize(settings.slidingWindowSize())
                .minimumNumberOfCalls(settings.minimumNumberOfCalls())
                .waitDurationInOpenState(settings.waitDurationInOpenState())
                .permittedNumberOfCallsInHalfOpenState(settings.permittedCallsInHalfOpenState())
                .build();
        return new DeviceCircuitBreakers(registry, config);
    }
}
