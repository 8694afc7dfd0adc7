// What a banner under the header is given by the app: the state it shows, the way to replace
// it, and where a failure of its button goes (the app's problems under the banners, so the
// header and banners keep to their quarter of the window).
import type { AppState } from '../../preload/contract';
import type { Explained } from '../../preload/model';

export interface BannerProps {
  state: AppState;
  onState: (state: AppState) => void;
  onError: (problem: Explained) => void;
}
