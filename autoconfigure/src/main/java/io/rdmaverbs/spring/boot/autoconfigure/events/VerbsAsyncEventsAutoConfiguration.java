package io.rdmaverbs.spring.boot.autoconfigure.events;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.events.AsyncEventPublisher;
import io.rdmaverbs.spring.boot.events.AsyncEventReaders;
import io.rdmaverbs.spring.boot.events.DeviceFaults;
import io.rdmaverbs.spring.boot.events.RefuseTrafficOnDeviceFatal;
import io.rdmaverbs.spring.boot.events.VerbsAsyncEvent;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Reads the async events of every device context and publishes them as {@link VerbsAsyncEvent}s.
 * Switched off by {@code rdma.verbs.async-events.enabled=false}. With
 * {@code rdma.verbs.async-events.refuse-traffic-on-device-fatal=true}, a {@code DEVICE_FATAL} event also
 * makes the application's readiness {@code REFUSING_TRAFFIC}.
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

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "rdma.verbs.async-events.refuse-traffic-on-device-fatal")
    RefuseTrafficOnDeviceFatal rdmaVerbsRefuseTrafficOnDeviceFatal(ApplicationEventPublisher publisher) {
        return new RefuseTrafficOnDeviceFatal(publisher);
    }
}
