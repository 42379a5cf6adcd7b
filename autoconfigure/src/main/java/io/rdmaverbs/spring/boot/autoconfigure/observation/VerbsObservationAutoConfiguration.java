package io.rdmaverbs.spring.boot.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;
import io.rdmaverbs.spring.boot.observation.LifecycleObservationConvention;
import io.rdmaverbs.spring.boot.observation.LifecycleObserver;
import io.rdmaverbs.spring.boot.observation.MicrometerLifecycleObserver;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observes the opening of declared devices and the teardown with the application's
 * {@link ObservationRegistry} (after Spring Boot's observation auto-configuration defines it), named and
 * tagged by the application's {@link LifecycleObservationConvention} bean if it has one. The
 * resource graph picks the observer up when it creates those beans; without one it observes nothing.
 */
@AutoConfiguration(
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class VerbsObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LifecycleObserver rdmaVerbsLifecycleObserver(ObservationRegistry registry,
            ObjectProvider<LifecycleObservationConvention> convention) {
        return new MicrometerLifecycleObserver(registry, convention.getIfUnique());
    }
}
