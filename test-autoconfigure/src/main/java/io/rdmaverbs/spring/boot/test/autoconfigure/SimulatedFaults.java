package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.Objects;
import java.util.function.Consumer;

import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.FaultPlan;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Plans faults on the simulated provider of a context before anything is created on it, and makes its
 * {@link FaultPlan} a bean ({@value #BEAN_NAME}). The provider bean is created before any resource (every
 * resource bean depends on it), and the plan is applied as soon as it exists, so a fault at a create of
 * the startup fails the startup.
 *
 * <pre>{@code
 * SimulatedFaults faults = SimulatedFaults.planning(plan -> plan.failCall("ibv_create_cq", 1, Errno.ENOMEM));
 * assertThatThrownBy(() -> new SpringApplicationBuilder(MyApplication.class).initializers(faults).run())
 *         .hasRootCauseInstanceOf(VerbsException.class);
 * assertThat(faults.provider().resourceCounts("rxe0").objects()).isZero();   // nothing left open
 * }</pre>
 *
 * {@link SimulatedVerbs} tests use one for their {@link InjectFault}s.
 */
public final class SimulatedFaults implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The name of the {@link FaultPlan} bean. */
    public static final String BEAN_NAME = "rdmaVerbsFaultPlan";

    private final Consumer<FaultPlan> plan;
    private volatile @Nullable SimulatedProvider provider;

    private SimulatedFaults(Consumer<FaultPlan> plan) {
        this.plan = plan;
    }

    /** Applies {@code plan} to the provider's fault plan as soon as the provider bean exists. */
    public static SimulatedFaults planning(Consumer<FaultPlan> plan) {
        return new SimulatedFaults(Objects.requireNonNull(plan, "plan"));
    }

    /** Plans nothing: counts the calls, and gives the context a {@link FaultPlan} bean. */
    public static SimulatedFaults none() {
        return planning(plan -> {
        });
    }

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        beanFactory.addBeanPostProcessor(new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof SimulatedProvider simulated) {
                    provider = simulated;
                    plan.accept(simulated.faults());
                }
                return bean;
            }
        });
        if (beanFactory instanceof BeanDefinitionRegistry registry && !registry.containsBeanDefinition(BEAN_NAME)) {
            RootBeanDefinition definition = new RootBeanDefinition(FaultPlan.class, () -> faultsOf(beanFactory));
            // Only when injected: a context on another provider has no plan, and must start all the same.
            definition.setLazyInit(true);
            definition.setDescription("The simulated provider's fault plan");
            registry.registerBeanDefinition(BEAN_NAME, definition);
        }
    }

    private static FaultPlan faultsOf(ConfigurableListableBeanFactory beanFactory) {
        // By VerbsProvider: the provider bean's declared type, which Spring matches before it exists.
        if (beanFactory.getBean(VerbsProvider.class) instanceof SimulatedProvider simulated) {
            return simulated.faults();
        }
        throw new IllegalStateException("the context's VerbsProvider is not the simulated one, so it has no fault "
                + "plan: set rdma.verbs.provider=simulated (@SimulatedVerbs does)");
    }

    /**
     * The simulated provider of the last context this initialized, still readable after that context
     * failed to start or was closed: its accounting says what was left open.
     *
     * @throws IllegalStateException when no such context created a simulated provider
     */
    public SimulatedProvider provider() {
        SimulatedProvider p = provider;
        if (p == null) {
            throw new IllegalStateException("no context initialized by these faults created a SimulatedProvider "
                    + "(is rdma.verbs.provider=simulated?)");
        }
        return p;
    }
}
