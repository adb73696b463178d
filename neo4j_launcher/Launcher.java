import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Neo4j Community, embedded, serving Bolt on a loopback port: HippoGraph's
 * test and benchmark server.
 *
 * <p>Arguments: {@code --store DIR} (kept; without it a temporary folder is
 * used and deleted at exit), {@code --port N} (0, the default, takes a free
 * port), and any number of {@code --conf key=value} Neo4j settings. The
 * password of user {@code neo4j} comes from the environment variable
 * {@code NEO4J_LAUNCHER_PASSWORD}, never from the command line, where other
 * users of the machine could read it.
 *
 * <p>Once Bolt answers, one line goes to standard output:
 * {@code NEO4J_READY bolt://127.0.0.1:<port> <version>}. The launcher
 * exits when its standard input closes, which is what happens when the
 * process that started it exits or dies, and on SIGTERM; either way the
 * database is shut down cleanly first.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        Path store = null;
        int port = 0;
        List<String> conf = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--store" -> store = Path.of(args[++i]);
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--conf" -> conf.add(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        String password = System.getenv("NEO4J_LAUNCHER_PASSWORD");
        if (password == null || password.length() < 8) {
            throw new IllegalArgumentException("NEO4J_LAUNCHER_PASSWORD must hold 8 or more characters");
        }
        boolean temporary = store == null;
        Path home = temporary ? Files.createTempDirectory("neo4j-launcher-") : store;
        Files.createDirectories(home);

        // Settings by name through a properties file: the names are stable
        // across 5.26 and 2026.x, while the Java constants behind them move.
        List<String> lines = new ArrayList<>(List.of(
                "server.bolt.enabled=true",
                "server.bolt.listen_address=127.0.0.1:" + port,
                "server.bolt.advertised_address=127.0.0.1:" + port,
                "server.http.enabled=false",
                "server.https.enabled=false",
                "dbms.security.auth_enabled=true",
                "dbms.usage_report.enabled=false",
                "db.tx_log.rotation.retention_policy=2 files"));
        lines.addAll(conf);
        Path properties = home.resolve("launcher.conf");
        Files.write(properties, lines, StandardCharsets.UTF_8);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(properties)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            if (temporary) {
                deleteTree(home);
            }
            stopped.countDown();
        }, "neo4j-launcher-shutdown"));

        try {
            GraphDatabaseService system = dbms.database("system");
            setPassword(system, password);
            GraphDatabaseAPI api = (GraphDatabaseAPI) system;
            HostnamePort bolt = api.getDependencyResolver()
                    .resolveDependency(ConnectorPortRegister.class)
                    .getLocalAddress(ConnectorType.BOLT);
            String version = org.neo4j.kernel.internal.Version.getNeo4jVersion();
            PrintStream out = System.out;
            out.println("NEO4J_READY bolt://127.0.0.1:" + bolt.getPort() + " " + version);
            out.flush();
        } catch (RuntimeException exc) {
            // Neo4j's own threads would keep a failed launcher alive, never ready.
            exc.printStackTrace();
            System.exit(1); // runs the shutdown hook
        }

        waitForEndOfInput(System.in);
        System.exit(0); // runs the shutdown hook
        stopped.await();
    }

    /**
     * Gives user neo4j our password. The first start leaves it "neo4j" with a
     * demand to change it; a restart on a kept store finds ours already, and
     * Neo4j refuses to set a password to itself, so it passes through a
     * throwaway one.
     */
    private static void setPassword(GraphDatabaseService system, String password) {
        String alter = "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED";
        String throwaway = "launcher-" + java.util.UUID.randomUUID();
        system.executeTransactionally(alter, Map.of("password", throwaway));
        system.executeTransactionally(alter, Map.of("password", password));
    }

    /** Blocks until the parent closes our standard input (or dies, which closes it). */
    private static void waitForEndOfInput(InputStream in) {
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // Anything written is ignored: only the end of input matters.
            }
        } catch (IOException ignored) {
            // A broken pipe means the same as end of input.
        }
    }

    private static void deleteTree(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException exc) {
            System.err.println("could not delete " + root + ": " + exc);
        }
    }
}
