package io.rdmaverbs.spring.boot.autoconfigure;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Attaches every {@link VerbsListener} bean to each {@link Verbs} graph as soon as the graph exists,
 * before any resource is created on it, whether the graph is the auto-configured one or the
 * application's own. A listener bean must therefore not depend on the graph itself.
 */
final class VerbsListenersPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<VerbsListener> listeners;

    VerbsListenersPostProcessor(ObjectProvider<VerbsListener> listeners) {
        this.listeners = listeners;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Verbs verbs) {
            listeners.orderedStream().forEach(verbs::addListener);
        }
        return bean;
    }
}
