
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def seat_rooms(apps, schema_editor):
    """Each seat keeps its table's room; a user seated twice in one room (the quick-join race
    this migration closes) keeps the seat of his newest table that he is not leaving."""
    Seat = apps.get_model("games", "Seat")
    for seat in Seat.objects.select_related("table").iterator():
        Seat.objects.filter(pk=seat.pk).update(room_id=seat.table.room_id)
    kept = set()
    seated = Seat.objects.filter(user__isnull=False).order_by("sit_out_after_hand", "-table_id")
    for seat in seated:
        key = (seat.room_id, seat.user_id)
        if key in kept:
            Seat.objects.filter(pk=seat.pk).update(
                user=None, autoplay=False, sit_out_after_hand=False, swap_with=None,
                connections=0, connected_at=None, disconnected_at=None,
            )
        kept.add(key)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_private_tables'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='hand',
            name='hand_unique_number',
        ),
        migrations.AddField(
            model_name='hand',
            name='redeal',
            field=models.PositiveSmallIntegerField(default=0, verbose_name='re-deal'),
        ),
        migrations.AddField(
            model_name='room',
            name='bots_take_absent_seats',
            field=models.BooleanField(default=False, help_text='A player away past the disconnect grace is stood up before the next deal; on: a house bot takes his seat, off: the seat waits for a player.', verbose_name="bots take absent players' seats"),
        ),
        migrations.AddField(
            model_name='seat',
            name='room',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='games.room', verbose_name='room'),
        ),
        migrations.RunPython(seat_rooms, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='seat',
            name='room',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='games.room', verbose_name='room'),
        ),
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.UniqueConstraint(fields=('table', 'number', 'redeal'), name='hand_unique_number'),
        ),
        migrations.AddConstraint(
            model_name='seat',
            constraint=models.UniqueConstraint(condition=models.Q(('user__isnull', False)), fields=('room', 'user'), name='seat_one_per_user_and_room'),
        ),
    ]
