package io.rdmaverbs.spring.boot.autoconfigure.events;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Reads the async events of every device context and publishes them as {@link VerbsAsyncEvent}s.
 * Switched off by {@code rdma.verbs.async-events.enabled=false}.
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnBooleanProperty(name = "rdma.verbs.async-events.enabled", matchIfMissing = true)
public final class VerbsAsyncEventsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    AsyncEventReaders rdmaVerbsAsyncEventReaders() {
        return new AsyncEventReaders();
    }

    @Bean
    @ConditionalOnMissingBean
    AsyncEventPublisher rdmaVerbsAsyncEventPublisher(ApplicationEventPublisher publisher) {
        return new AsyncEventPublisher(publisher);
    }

    @Bean
    @ConditionalOnMissingBean
    DeviceFaults rdmaVerbsDeviceFaults() {
        return new DeviceFaults();
    }
}
