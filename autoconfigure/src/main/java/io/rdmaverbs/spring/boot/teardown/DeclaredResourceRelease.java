package io.rdmaverbs.spring.boot.teardown;

import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsResource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;

/**
 * The destroy callback of RDMA resource beans. After a normal shutdown the {@link VerbsTeardown} has
 * already released (or deliberately left) everything, and this does nothing; when a context is
 * destroyed without being stopped (its refresh failed half-way), it releases each resource under the
 * configured policy, dependents first as Spring destroys them.
 */
public final class DeclaredResourceRelease implements DestructionAwareBeanPostProcessor {

    private static final Log logger = LogFactory.getLog(DeclaredResourceRelease.class);

    private final ObjectProvider<VerbsTeardown> teardown;
    private final TeardownPolicy policy;

    /**
     * @param teardown the teardown, which may not exist yet when a refresh fails early
     * @param policy the configured policy, for that case
     */
    public DeclaredResourceRelease(ObjectProvider<VerbsTeardown> teardown, TeardownPolicy policy) {
        this.teardown = teardown;
        this.policy = policy;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
        if (!(bean instanceof VerbsResource resource) || !resource.isOpen()) {
            return;
        }
        VerbsTeardown t = existingTeardown();
        if (t != null) {
            t.release(resource);
            return;
        }
        try {
            resource.close(policy.closePolicy());
        } catch (VerbsException e) {
            logger.warn("RDMA verbs: bean '" + beanName + "' (" + resource.ref() + ") was left open: "
                    + e.getMessage());
        }
    }

    private @Nullable VerbsTeardown existingTeardown() {
        try {
            return teardown.getIfAvailable();
        } catch (BeansException e) {
            // No bean may be created while the factory destroys its singletons.
            return null;
        }
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        return bean instanceof VerbsResource;
    }
}
