#!/usr/bin/perl
# Debian's Slurmdb Perl API over libslurm.so.38 (libspur_compat on the Spur target): open a connection, read the
# cluster, one finished job by id and the QOS list, close.
use strict;
use warnings;
# Slurmdb.so never reads slurm.conf itself (no accounting plugin without it): loading Slurm first calls
# slurm_init(), as scripts using Slurmdb with 22.05 do.
use Slurm;
use Slurmdb;

my $id = shift @ARGV;
my $db = Slurmdb::connection_get();
printf "connection %s\n", defined $db ? 'ok' : 'undef';

my $clusters = Slurmdb::clusters_get($db, {});
printf "clusters %d\n", scalar @$clusters;
printf "cluster %s\n", $_->{name} for @$clusters;

# slurmdbd selects jobs by a time window: without usage_end it finds none, whatever the step list.
my $jobs = Slurmdb::jobs_get($db, { step_list => $id, usage_start => 1, usage_end => time() + 3600 });
printf "jobs %d\n", scalar @$jobs;
for my $j (@$jobs) {
    printf "job %d name %s partition %s account %s state %d exitcode %d alloc_nodes %d nodes %s uid %d\n",
        $j->{jobid}, $j->{jobname}, $j->{partition}, $j->{account} // '', $j->{state}, $j->{exitcode},
        $j->{alloc_nodes}, $j->{nodes}, $j->{uid} // -1;
}

my $qos = Slurmdb::qos_get($db, {});
printf "qos %s\n", join(' ', sort map { $_->{name} } @$qos);

printf "tres cpu count %d\n", Slurmdb::find_tres_count_in_string('1=2,2=1024,4=1', 1);
printf "close rc %d\n", Slurmdb::connection_close(\$db);
